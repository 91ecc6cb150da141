// SPDX-License-Identifier: MIT
// Which stack a stack pointer is on. A thread runs on its own stack, but a signal handler
// may run on an alternate signal stack (sigaltstack) and a coroutine on a stack of its own
// (makecontext, swapcontext): measured from the thread's first stack pointer, either would
// look like a stack gigabytes deep (or none at all).
#pragma once

#include <cstddef>
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

// Learns what the thread library puts at the top of a thread's stack (the thread's
// descriptor and static TLS), for new_thread_stack. Once, before threads start: it may
// allocate (dlsym).
void learn_thread_stack_layout();

// A new thread's stack, seen from its start routine's entry (`start`, where it is
// measured from), without asking the thread library (pthread_getattr_np allocates through
// the program's malloc, which may be waiting for a lock the thread holds). `given`/
// `given_size`: the stack the program gave it (pthread_attr_setstack), used when `start`
// lies on it; else the `size` the thread library makes stacks of, whose top holds the
// descriptor and static TLS above `start`, with a little above for the thread library's
// own frames.
StackRange new_thread_stack(uintptr_t start, uintptr_t given, size_t given_size, size_t size);

// A thread's stack known only by `sp`, one of its calls' stack pointers (a thread the C
// library started itself): the main thread's size limit either way.
StackRange unknown_thread_stack(uintptr_t sp);

// The calling thread's alternate signal stack, when `sp` is on it: its depth there,
// measured from the stack's top. Async-signal-safe (one sigaltstack call).
bool signal_stack_depth(uintptr_t sp, uint64_t& depth, uintptr_t& top);

}  // namespace memusage
