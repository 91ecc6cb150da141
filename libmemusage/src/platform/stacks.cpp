// SPDX-License-Identifier: MIT
#include "platform/stacks.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>

namespace memusage {

StackRange main_thread_stack(uintptr_t start) {
    StackRange range;
    struct rlimit limit;
    // The kernel keeps the main stack within its limit of the stack's top, which lies a
    // little above `start` (the environment, the auxiliary vector): below start - limit
    // is certainly not the main stack, and an alternate stack mapped by the program lies
    // there (the kernel maps below the stack's largest extent).
    if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return range;
    range.low = start > limit.rlim_cur ? start - limit.rlim_cur : 0;
    return range;
}

namespace {

// The thread library's frames above a start routine: a page or two. More is harmless: a
// call there uses no stack, and no other thread's stack lies right above this one's top.
constexpr uintptr_t kAboveStart = uintptr_t{64} * 1024;
constexpr size_t kUnlimitedStack = 8 << 20;

// The C library's static TLS size, its thread descriptor included: what lies between a
// thread's stack block's top and the stack its start routine runs on, but for the thread
// library's own frame (a few hundred bytes, which fall in the guard page below). 0 when
// unknown: the estimate then reaches that much below the stack.
size_t static_tls_bytes = 0;

size_t stack_size_limit() {
    struct rlimit limit;
    if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return kUnlimitedStack;
    return static_cast<size_t>(limit.rlim_cur);
}

StackRange around(uintptr_t sp, size_t below, uintptr_t above) {
    StackRange range;
    range.low = sp > below ? sp - below : 0;
    range.high = sp < UINTPTR_MAX - above ? sp + above : UINTPTR_MAX;
    return range;
}

}  // namespace

void learn_thread_stack_layout() {
    // The dynamic loader's own question, as sanitizers ask it (GLIBC_PRIVATE).
    using TlsStaticInfo = void (*)(size_t * size, size_t * align);
    auto info = reinterpret_cast<TlsStaticInfo>(dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info"));
    size_t size = 0, align = 0;
    if (info != nullptr) info(&size, &align);
    static_tls_bytes = size < (1u << 20) ? size : 0;
}

StackRange new_thread_stack(uintptr_t start, uintptr_t given, size_t given_size, size_t size) {
    if (given_size != 0 && start - given < given_size) {
        StackRange range;
        range.low = given;
        range.high = given + given_size;
        return range;
    }
    size_t below = size != 0 ? size : stack_size_limit();
    if (static_tls_bytes < below) below -= static_tls_bytes;
    return around(start, below, kAboveStart);
}

StackRange unknown_thread_stack(uintptr_t sp) {
    size_t size = stack_size_limit();
    return around(sp, size, size);
}

bool signal_stack_depth(uintptr_t sp, uint64_t& depth, uintptr_t& top) {
    stack_t current;
    if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) != 0) return false;
    auto low = reinterpret_cast<uintptr_t>(current.ss_sp);
    if (sp - low >= current.ss_size) return false;
    top = low + current.ss_size;
    depth = top - sp;
    return true;
}

}  // namespace memusage
