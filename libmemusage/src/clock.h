// The two readings every event carries: when, and how deep the stack is.
#pragma once

#include <x86intrin.h>

#include <cstdint>

namespace memusage {

// The invariant cycle counter: cheap, and on the same scale on every core, so events
// of different threads can be merged in time order. glibc's collector stamps with it too.
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

inline uintptr_t stack_pointer() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

}  // namespace memusage
