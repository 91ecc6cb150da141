// What a signal handler learns of the code it interrupted, from the context the kernel
// hands it: where that code's stack was. Each architecture names the register its own way.
#pragma once

#include <ucontext.h>

#include <cstdint>

#include "platform/clock.h"

namespace memusage {

// The interrupted code's stack pointer; the handler's own when there is no context.
inline uintptr_t interrupted_stack_pointer(const void* context) {
    if (context == nullptr) return stack_pointer();
    const auto& registers = static_cast<const ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
    return static_cast<uintptr_t>(registers.gregs[REG_RSP]);
#elif defined(__i386__)
    return static_cast<uintptr_t>(registers.gregs[REG_ESP]);
#elif defined(__aarch64__)
    return static_cast<uintptr_t>(registers.sp);
#elif defined(__arm__)
    return static_cast<uintptr_t>(registers.arm_sp);
#elif defined(__riscv)
    return static_cast<uintptr_t>(registers.__gregs[2]);  // x2, the stack pointer
#else
#error "the interrupted stack pointer of this architecture: add it here"
#endif
}

}  // namespace memusage
