// SPDX-License-Identifier: MIT
// The data file interpreted: header values (repaired when the run died) and the events.
#pragma once

#include <memusage/record.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "memusage/status.h"

namespace memusagestat {

// What the two header records hold once a reader can trust them.
struct ProfileHeader {
    uint64_t heap_peak = 0;
    uint64_t stack_peak = 0;
    uint64_t total_peak = 0;
    uint64_t start_time = 0;
    uint64_t end_time = 0;
    bool repaired = false;  // the file's header had zero peaks; these came from a scan
};

// No event has time 0 (the clock is a cycle counter): a record after the header whose time
// is 0 is room the collector made that a kill stopped it filling, or a record a kill cut
// short at a page boundary (its heap written, its stack and time not). Readers drop it.
inline bool is_timeless(const memusage::Record& r) { return r.time_low == 0 && r.time_high == 0; }

// More heap than any machine can address (57-bit virtual addresses, five-level paging):
// a counter that went below zero and wrapped. glibc's collector with -m leaves such values:
// it subtracts every munmap but never adds an anonymous mmap.
inline constexpr uint64_t kImplausibleHeap = uint64_t{1} << 57;
inline bool is_plausible_heap(uint64_t heap) { return heap < kImplausibleHeap; }

struct Profile {
    ProfileHeader header;
    // Every record after the two header records, except the timeless ones at the end;
    // those in the middle (no writer leaves any) are for the consumer to drop.
    std::span<const memusage::Record> events;
    uint64_t ignored_tail_bytes = 0;     // a partial last record, left by a killed run
    uint64_t timeless_tail_records = 0;  // timeless records dropped from the end
};

enum class HeaderRepair {
    scan_now,  // a zero-peak header is rebuilt from the events before returning
    leave,     // the caller scans (in chunks, to bound memory); header.repaired tells it to
};

// Interprets a whole data file held in memory. `bytes` must be aligned for Record
// (mmap'd memory is). Failing, a message for the user.
memusage::Status parse_profile(std::span<const std::byte> bytes, Profile& profile,
                               HeaderRepair repair = HeaderRepair::scan_now);

// Rebuilds the header a run that died never wrote: peaks from the events, the end time
// of the last event; timeless records count for neither. Fed in chunks so that a huge
// file need not be resident at once.
class HeaderScan {
  public:
    explicit HeaderScan(const memusage::Record& first);
    void add(std::span<const memusage::Record> events);
    const ProfileHeader& header() const { return header_; }

  private:
    ProfileHeader header_;
};

// The two header records that encode `header`, as the collector writes them.
void encode_header(const ProfileHeader& header, memusage::Record out[2]);

inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

}  // namespace memusagestat
