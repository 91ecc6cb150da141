// SPDX-License-Identifier: MIT
// The profiled program's environment: the driver's own, plus LD_PRELOAD and the collector's
// MEMUSAGE_* settings.
#pragma once

#include <string>
#include <vector>

#include "options.h"

namespace memusage {

// ld.so splits LD_PRELOAD at spaces and colons, so a path holding either cannot be preloaded.
bool can_preload(const std::string& library_path);

// inherited: NAME=VALUE strings (environ). data_path: the file MEMUSAGE_OUTPUT names, empty for
// none; sites_path the same for MEMUSAGE_SITES. The collector goes first in LD_PRELOAD so it
// sees every allocation; libraries the user already preloads stay, after it.
std::vector<std::string> child_environment(const std::vector<std::string>& inherited,
                                           const DriverOptions& options,
                                           const std::string& collector_path,
                                           const std::string& data_path,
                                           const std::string& sites_path = {});

}  // namespace memusage
