// The two readings every event carries: when, and how deep the stack is.
#pragma once

#include <time.h>
#include <x86intrin.h>

#include <cstdint>

namespace memusage {

// The invariant cycle counter: on the same scale on every core, so events of different
// threads can be merged in time order. glibc's collector stamps with it too. Not cheap
// (about 10 ns on the AMD EPYC we measure on): a thread recording alone without a data
// file takes no reading at all.
inline uint64_t cycle_counter() { return __rdtsc(); }

// A reading that earlier loads cannot fall behind: without the fence the processor
// may read the counter before it has seen what another thread handed over, and stamp
// the consequence earlier than its cause.
inline uint64_t ordered_cycle_counter() {
    _mm_lfence();
    return __rdtsc();
}

// A cycle-counter reading that later loads cannot move ahead of: the merge reads the
// other threads' progress after this instant.
inline uint64_t cycle_counter_fenced() {
    uint64_t now = __rdtsc();
    _mm_lfence();
    return now;
}

// Wall-clock-rate time for what is stamped in nanoseconds (files' clock readings, waits):
// clock_gettime is async-signal-safe and needs no allocation.
inline uint64_t monotonic_nanoseconds() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

// Read directly: __builtin_frame_address would force a frame pointer on every hook.
inline uintptr_t stack_pointer() {
    uintptr_t sp;
    asm volatile("mov %%rsp, %0" : "=r"(sp));
    return sp;
}

}  // namespace memusage
