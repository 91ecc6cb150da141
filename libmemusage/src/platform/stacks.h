// Which stack a stack pointer is on. A thread runs on its own stack, but a signal handler
// may run on an alternate signal stack (sigaltstack) and a coroutine on a stack of its own
// (makecontext, swapcontext): measured from the thread's first stack pointer, either would
// look like a stack gigabytes deep (or none at all).
#pragma once

#include <cstdint>

namespace memusage {

// The addresses a thread's own stack may span: [low, high).
struct StackRange {
    uintptr_t low = 0;
    uintptr_t high = UINTPTR_MAX;  // unknown: every address counts as the thread's own

    bool holds(uintptr_t sp) const { return sp - low < high - low; }
};

// The main thread's stack, seen from `start` (the first stack pointer it is measured
// from): down to its size limit (RLIMIT_STACK), and anything above. Unlimited: all of it.
StackRange main_thread_stack(uintptr_t start);

// The calling thread's stack as its thread library made it (pthread_getattr_np, which
// allocates: call it where the thread's allocations are not counted). The main thread's,
// or when that fails: unknown.
StackRange this_thread_stack(bool main_thread, uintptr_t main_start);

// The calling thread's alternate signal stack, when `sp` is on it: its depth there,
// measured from the stack's top. Async-signal-safe (one sigaltstack call).
bool signal_stack_depth(uintptr_t sp, uint64_t& depth, uintptr_t& top);

}  // namespace memusage
