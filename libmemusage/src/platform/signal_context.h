// SPDX-License-Identifier: MIT
// What a signal handler learns of the code it interrupted, from the context the kernel
// hands it: where that code's stack was, and its registers for the unwinder. Each
// architecture names the registers its own way.
#pragma once

#include <ucontext.h>

#include <cstdint>
#include <cstring>

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

// The registers of a ucontext_t (a signal handler's, or one getcontext filled) as the
// unwinder's init_local and init_local2 take them: the ucontext_t itself on most machines.
// On 32-bit ARM libunwind's context is the sixteen core registers r0..r15, which the
// kernel's sigcontext and getcontext hold in that order from arm_r0 on: they are copied
// into `room`, which must be another ucontext_t.
inline void* unwinder_context(const void* context, ucontext_t& room) {
#if defined(__arm__)
    const auto& registers = static_cast<const ucontext_t*>(context)->uc_mcontext;
    static_assert(sizeof room >= 16 * sizeof registers.arm_r0);
    memcpy(&room, &registers.arm_r0, 16 * sizeof registers.arm_r0);
    return &room;
#else
    (void)room;
    return const_cast<void*>(context);
#endif
}

}  // namespace memusage
