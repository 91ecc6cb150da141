// SPDX-License-Identifier: MIT
// `memusage -p`: draws the run's data file with the drawing code memusagestat uses.
#pragma once

#include <string>

#include "memusage/status.h"
#include "options.h"

namespace memusage {

// Fails, saying why, when the requested picture could not be drawn whatever the run gives:
// checked before the program runs, so that a typing mistake does not cost a whole run.
Status graph_request_error(const DriverOptions& options);

enum class GraphOutcome { drawn, nothing_recorded, failed };

struct GraphResult {
    GraphOutcome outcome = GraphOutcome::drawn;
    std::string message;  // for the user, unless drawn
};

GraphResult draw_requested_graph(const DriverOptions& options, const std::string& data_path);

}  // namespace memusage
