// SPDX-License-Identifier: MIT
// The hot path's pieces a benchmark build of the collector leaves out, one at a time, to
// measure what each costs (tests/bench/collector/bench_pieces.sh). The build chooses them
// with the CMake cache variable MEMUSAGE_BENCH_OFF (a list of the names below); the
// shipped collector is built with none, so every switch here is a constant false and the
// code it guards is exactly the code that ships. A build with a piece off counts wrongly
// by design: it exists to be timed, never to be used.
#pragma once

namespace memusage::bench_off {

#ifdef MEMUSAGE_BENCH_OFF_COUNTING
inline constexpr bool counting = true;  // the calls' and bytes' counters
#else
inline constexpr bool counting = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_HISTOGRAM
inline constexpr bool histogram = true;  // the request sizes' histogram
#else
inline constexpr bool histogram = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_HEADER
inline constexpr bool header = true;  // the block header: written on malloc, found on free
#else
inline constexpr bool header = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_FREED_MARK
inline constexpr bool freed_mark = true;  // the mark free leaves in the block (block.h)
#else
inline constexpr bool freed_mark = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_STACK
inline constexpr bool stack = true;  // the thread's stack use at each call, and its peak
#else
inline constexpr bool stack = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_PEAK
inline constexpr bool peak = true;  // the heap's, stack's and total's peaks in the stream
#else
inline constexpr bool peak = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_RECORD
inline constexpr bool record = true;  // the event's way into the stream (peaks included)
#else
inline constexpr bool record = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_STAMP
// A one-thread record's time stamp for the data file (the cycle counter's reading): each
// record gets its predecessor's time plus one instead. Measured with a data file only.
inline constexpr bool stamp = true;
#else
inline constexpr bool stamp = false;
#endif
#ifdef MEMUSAGE_BENCH_OFF_THREAD_SLOT
inline constexpr bool thread_slot = true;  // claiming the thread's log for the call
#else
inline constexpr bool thread_slot = false;
#endif

}  // namespace memusage::bench_off
