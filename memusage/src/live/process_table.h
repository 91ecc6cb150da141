// SPDX-License-Identifier: MIT
// memusage --ps: the profiled processes running now, one line each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "live/live_figures_file.h"

namespace memusage::live {

// The table (a heading, then a line per process), or a line saying there is none;
// `now_ns` is CLOCK_MONOTONIC now, for the elapsed times.
std::string process_table(const std::vector<RunningProcess>& processes, uint64_t now_ns);

}  // namespace memusage::live
