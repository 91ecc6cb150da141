// SPDX-License-Identifier: MIT
// The report's `timeline` (web/DATA.md): the data file's records (heap and stack after each
// call) in seconds, thinned beyond a bound to each bucket's least and greatest heap, stack and
// total, its first and its last record, so that no peak is lost.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "html/run_clock.h"
#include "html/time_window.h"
#include "read/mapped_data_file.h"

namespace memusagestat {

inline constexpr size_t kTimelineBound = 50000;

nlohmann::json timeline_json(const MappedDataFile& file, const RunClock& clock,
                             const std::optional<TimeWindow>& window,
                             size_t bound = kTimelineBound);

}  // namespace memusagestat
