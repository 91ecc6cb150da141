// SPDX-License-Identifier: MIT
// `memusage --html=FILE`: the run's HTML report, made with the code memusagestat --html uses
// from the files the run wrote (data file, sites file, event recording, summary file).
#pragma once

#include <string>
#include <vector>

#include "memusage/status.h"
#include "options.h"

namespace memusage {

// Writes options.html_path from the run's files; failing, a message for the user, and in
// `warnings` what the user should know of it.
Status write_requested_html(const DriverOptions& options, const std::string& data_path,
                            const std::string& sites_path, const std::string& events_path,
                            const std::string& summary_path, std::vector<std::string>& warnings);

}  // namespace memusage
