// SPDX-License-Identifier: MIT
// The report's `stack_peaks` (web/DATA.md): each thread's stack at its deepest captured
// point, as the stack peak report (reports/stack_peaks_report.h) shows it: the main thread's,
// then the deepest; each frame, outermost first, an index into the report's `frames` with
// the bytes it held.
#pragma once

#include <nlohmann/json.hpp>

#include "html/frame_table.h"
#include "html/run_clock.h"
#include "read/sites_reader.h"
#include "sites/symbolizer.h"

namespace memusagestat {

// Null when the profile has no stack peak. `threads`: the report's `threads`, whose serial
// a peak's thread id is given (null for a thread the events do not name). `clock`: the
// report's; a peak's time is null when the clock is relative (its rate unknown).
nlohmann::json stack_peaks_json(const SitesProfile& profile, Symbolizer& symbolizer,
                                FrameTable& table, const RunClock& clock,
                                const nlohmann::json& threads);

}  // namespace memusagestat
