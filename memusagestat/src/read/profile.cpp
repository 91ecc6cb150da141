// SPDX-License-Identifier: MIT
#include "read/profile.h"

#include <algorithm>

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

using memusage::Record;

Status parse_profile(std::span<const std::byte> bytes, Profile& profile, HeaderRepair repair) {
    if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(Record) != 0)
        return Failure{"internal error: data not aligned for records"};
    const size_t whole_records = bytes.size() / sizeof(Record);
    if (whole_records < memusage::kHeaderRecords)
        return Failure{"input file has incorrect size: " + std::to_string(bytes.size()) +
                       " bytes, less than the two header records (48 bytes)"};

    const auto* records = reinterpret_cast<const Record*>(bytes.data());
    profile = Profile{};
    profile.ignored_tail_bytes = bytes.size() % sizeof(Record);
    profile.events = {records + memusage::kHeaderRecords,
                      static_cast<size_t>(whole_records - memusage::kHeaderRecords)};
    // A killed run may have made room for records it never wrote (the collector lengthens
    // the file before each write), and cut the last one it wrote short.
    while (!profile.events.empty() && is_timeless(profile.events.back())) {
        profile.events = profile.events.first(profile.events.size() - 1);
        ++profile.timeless_tail_records;
    }

    if (memusage::header_is_complete(records[0], records[1])) {
        profile.header.total_peak = records[0].stack;
        profile.header.start_time = records[0].time();
        profile.header.heap_peak = records[1].heap;
        profile.header.stack_peak = records[1].stack;
        profile.header.end_time = records[1].time();
    } else {
        HeaderScan scan(records[0]);
        if (repair == HeaderRepair::scan_now) scan.add(profile.events);
        profile.header = scan.header();
    }
    return {};
}

HeaderScan::HeaderScan(const Record& first) {
    header_.repaired = true;
    header_.start_time = first.time();
    header_.end_time = header_.start_time;
}

void HeaderScan::add(std::span<const Record> events) {
    uint64_t heap_peak = header_.heap_peak, stack_peak = header_.stack_peak,
             total_peak = header_.total_peak, end_time = header_.end_time;
    for (const Record& r : events) {
        if (is_timeless(r)) [[unlikely]]
            continue;
        heap_peak = std::max(heap_peak, r.heap);
        stack_peak = std::max(stack_peak, r.stack);
        total_peak = std::max(total_peak, saturating_add(r.heap, r.stack));
        end_time = r.time();
    }
    header_.heap_peak = heap_peak;
    header_.stack_peak = stack_peak;
    header_.total_peak = total_peak;
    header_.end_time = end_time;
}

void encode_header(const ProfileHeader& header, Record out[2]) {
    out[0] = Record{0, header.total_peak, 0, 0};
    out[0].set_time(header.start_time);
    out[1] = Record{header.heap_peak, header.stack_peak, 0, 0};
    out[1].set_time(header.end_time);
}

}  // namespace memusagestat
