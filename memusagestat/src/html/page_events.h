// SPDX-License-Identifier: MIT
// The report's `events`, `blocks`, `threads` and `buckets` (web/DATA.md) from two passes over
// the event recording: each event with the heap after it and its site, each block life of the
// replay, the blocks each site freed before their thread's next allocation (`temporary`), and
// the exact figures of every event by time bucket (HeapBuckets, whose sites take the second).
// Bounded: beyond the bounds the events kept are every bucket's extremes of the heap and a
// sample (ExtremesThinner), the blocks kept those that cover the most of the block map.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "html/run_clock.h"
#include "html/time_window.h"
#include "read/events_reader.h"

namespace memusagestat {

struct ReportEventBounds {
    size_t events = 200000;
    size_t blocks = 100000;
};

struct ReportEventsInput {
    RunClock clock;
    std::optional<TimeWindow> window;
    uint64_t expected_events = 0;  // events in the window, for the thinning's buckets
    ReportEventBounds bounds;
    // The report's site of a raw site id (-1 for none), and where a site's temporary blocks
    // are counted; either may be empty.
    std::function<int32_t(uint32_t)> site_of;
    std::vector<uint64_t>* temporary = nullptr;
    // Whether a raw site id's blocks are the C or C++ runtime's, kept until exit; may be empty.
    std::function<bool(uint32_t)> kept_by_runtime;
    // How to write a report of one window with every event, for this run's files (a
    // sentence); empty: the general advice.
    std::string window_command;
};

// nlohmann::json frees nested values through a stack it allocates, so its destructor could
// in theory run out of memory; that ends the program as any failed allocation does.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ReportEvents {
    nlohmann::json events, blocks, threads, buckets;
    std::vector<std::string> notes;
};

// Reads the recording from its first event. Never fails: a damaged recording gives the
// events before the damage, and a note.
ReportEvents report_events(EventsReader& reader, const ReportEventsInput& input);

}  // namespace memusagestat
