// SPDX-License-Identifier: MIT
// The report's `summary` (web/DATA.md): the figures of the text summary the collector printed
// at exit, row for row, from the summary file; or, with only a data file, the peaks it holds
// and null for the rest.
#pragma once

#include <memusage/stats.h>

#include <nlohmann/json.hpp>

#include "read/profile.h"

namespace memusagestat {

// mmap_rows: the run traced memory maps (memusage -m), so the summary printed their rows.
nlohmann::json summary_json(const memusage::Stats& stats, bool mmap_rows);

nlohmann::json peaks_only_summary_json(const ProfileHeader& header);

}  // namespace memusagestat
