// SPDX-License-Identifier: MIT
// The two-run page's data (memusagestat --html=OUT --diff A B; web/DATA.md, "The two-run
// page"): both runs' heap timelines on one clock, the totals and every matched site with its
// figures in either run, all from the text --diff's matcher and figures (reports/site_diff.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memusage/status.h"

namespace memusagestat {

// A and B as the text --diff takes them: two sites files, or two data files. Beside a sites
// file S.sites (or S) the page reads the run's data file S.dat for its timeline, and beside
// either the summary S.summary for its clock and command, the names memusage --keep and
// --events=FILE give them; without them a run has no timeline (a note says so).
struct DiffPageRequest {
    std::string before, after;
};

// The name of the run's other file `extension` beside `path`: S.dat for S.sites or S.
std::string name_beside(const std::string& path, const std::string& extension);
// The run's other file named `extension` beside `path` (the kept layout), or "" when there
// is none.
std::string file_beside(const std::string& path, const std::string& extension);

// Failing, a message for the user; `warnings`: what the user should know (also in the
// page's notes).
memusage::Status build_diff_page_data(const DiffPageRequest& request, nlohmann::json& data,
                                      std::vector<std::string>& warnings);

// Builds the page and writes it to `out_path`.
memusage::Status write_diff_page(const DiffPageRequest& request, const std::string& out_path,
                                 std::vector<std::string>& warnings);

}  // namespace memusagestat
