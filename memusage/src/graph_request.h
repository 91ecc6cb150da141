// `memusage -p`: draws the run's data file with the drawing code memusagestat uses.
#pragma once

#include <string>

#include "options.h"

namespace memusage {

// Returns a message for the user when no picture was made, else empty.
std::string draw_requested_graph(const DriverOptions& options, const std::string& data_path);

}  // namespace memusage
