// SPDX-License-Identifier: MIT
// Stack peaks (MEMUSAGE_STACK_PEAK, and with MEMUSAGE_SITES): which functions held a
// thread's stack at its deepest. Where the stack's depth is measured (an allocation call,
// a profiling tick), a depth beyond what the thread captured last by a margin has the
// thread's frames captured with their stack pointers, into a slot of its own: no lock, no
// allocation, async-signal-safe but for libunwind's own lock, which it takes with signals
// blocked. The sites file carries the slots at exit.
#pragma once

#include <cstdint>

#include "memusage/sites_format.h"

namespace memusage::stack_peaks {

// Set once at start, before any thread counts.
inline constinit bool enabled = false;

// How many threads' peaks are kept: a thread takes a slot at its first capture; once all
// are taken, a thread's capture replaces the smallest peak of a thread that has ended, if
// smaller, or is dropped.
inline constexpr uint32_t kSlots = 256;

struct Slot {
    // free -> live (its thread writes it) -> ended (kept; another thread may take it over)
    uint32_t state;
    sites_format::StackPeakRecord record;  // time_ns holds the cycle counter until written
    sites_format::StackPeakFrame frames[sites_format::kMaxStackPeakDepth];
    // A deeper stack's outer frames, folded (record.flags says how many).
    sites_format::StackPeakOuterFrame outer[sites_format::kMaxStackPeakOuter];
};

// Reserves the slots (needs unwind::load() first). False without memory.
bool start();

// A depth the thread may capture: `depth` measured at `sp`, on its own stack or on its
// alternate signal stack (`on_signal_stack`). From a profiling tick, `signal_context` is the
// interrupted context (its ucontext_t); from an allocation call, null. Returns the depth
// above which the next capture is worth taking.
__attribute__((noinline, cold)) uint64_t capture(uint64_t depth, uintptr_t sp, bool on_signal_stack,
                                                 const void* signal_context);

// The thread ends: its slot stays, and may be taken over. It captures nothing more.
void end_thread();

// The slots, for the sites file at exit (a slot whose record has depth 0 holds nothing).
const Slot* slots();
bool dropped();
// Nanoseconds since start() of a cycle-counter reading, scaled by the clock's rate
// measured between start() and now. Async-signal-safe.
uint64_t nanoseconds_since_start(uint64_t cycles);

}  // namespace memusage::stack_peaks
