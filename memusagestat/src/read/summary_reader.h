// SPDX-License-Identifier: MIT
// A summary file (memusage/summary_format.h) read and checked: nothing in it is trusted, and a
// file of another machine (byte order, word size) or of a newer version is refused with a
// message that says so.
#pragma once

#include <memusage/stats.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "memusage/status.h"

namespace memusagestat {

struct RunSummary {
    memusage::Stats stats{};
    bool mmap_rows = false;  // the printed summary had the mmap rows
    uint64_t pid = 0;
    // The run's cycle counter and monotonic clock (ns) at its start and at exit; 0: unknown.
    uint64_t start_cycles = 0, start_ns = 0, end_cycles = 0, end_ns = 0;
    // The program's command line, its words joined by spaces; empty when the file has none
    // (version 1).
    std::string command;

    // Seconds per cycle of the counter, from the two readings; 0 when they cannot tell.
    double seconds_per_cycle() const;
};

// Interprets a whole summary file held in memory; failing, a message.
memusage::Status parse_summary(std::span<const std::byte> bytes, RunSummary& summary);

// Reads and interprets the file at `path`: the same messages, after the path.
memusage::Status read_summary_file(const std::string& path, RunSummary& summary);

}  // namespace memusagestat
