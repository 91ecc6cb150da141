// SPDX-License-Identifier: MIT
// The time glibc's collector writes in its data file on this machine, from our stamps.
// glibc stamps with the time-stamp counter on x86-64 and i686, and with CLOCK_REALTIME's
// microseconds everywhere else; a file written here must say what glibc's would, so that
// readers that know the machine know the unit (memusage/record.h, TimeUnit).
#pragma once

#include <cstdint>

namespace memusage {

#if defined(__x86_64__) || defined(__i386__)

// Our stamps are glibc's: nothing to convert.
inline void start_data_file_clock(uint64_t) {}
inline uint64_t data_file_time(uint64_t stamp) { return stamp; }

#else

// Pairs the stamp `stamp`, taken now, with the wall clock, and learns the stamps' rate.
// Called once, when the data file is opened (before any record is written); not
// async-signal-safe.
void start_data_file_clock(uint64_t stamp);

// Microseconds since the epoch at the instant stamped `stamp`. Async-signal-safe.
uint64_t data_file_time(uint64_t stamp);

#endif

}  // namespace memusage
