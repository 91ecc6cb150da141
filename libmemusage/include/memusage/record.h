// SPDX-License-Identifier: MIT
// The data file's record: the one layout the collector writes and memusagestat reads.
// glibc-compatible: a flat array of these in native byte order. Record 0 holds the
// total peak (stack field) and the start time, record 1 the heap and stack peaks and
// the end time; every later record is one event.
#pragma once

#include <cstdint>

namespace memusage {

struct Record {
    uint64_t heap;
    uint64_t stack;
    uint32_t time_low;
    uint32_t time_high;

    uint64_t time() const { return (uint64_t{time_high} << 32) | time_low; }
    void set_time(uint64_t t) {
        time_low = static_cast<uint32_t>(t);
        time_high = static_cast<uint32_t>(t >> 32);
    }
};
static_assert(sizeof(Record) == 24, "the data file's record is 24 bytes");

inline constexpr uint64_t kHeaderRecords = 2;

// Whether the run's exit rewrote the header. Both collectors, glibc's and ours, first
// write it with zero peaks and the start time in both records, and at exit with the peaks
// and the end time in record 1. Zero peaks alone do not tell: a run that allocated nothing
// ends with them too. Its end time does, always later than its start (the cycle counter
// advanced in between). A header still provisional comes from a run that never reached
// its exit handler; readers then recover the peaks by scanning the events.
inline bool header_is_complete(const Record& first, const Record& second) {
    return first.stack != 0 || second.heap != 0 || second.stack != 0 ||
           second.time() != first.time();
}

}  // namespace memusage
