// `memusage --sites`: the allocation-site report of the run, made with the code
// memusagestat --sites uses.
#pragma once

#include <string>

#include "options.h"

namespace memusage {

// The report's text into `report`, or a message for the user when there is none.
std::string requested_sites_report(const DriverOptions& options, const std::string& sites_path,
                                   std::string& report);

}  // namespace memusage
