// Runs the program as a child and waits for it, passing on the signals a user sends to stop
// it, so that the driver outlives the program and can clean up after it.
#pragma once

#include <string>
#include <vector>

#include "program_outcome.h"

namespace memusage {

// path: the file to execute; arguments[0] is what the program sees as its name.
ProgramOutcome run_child(const std::string& path, const std::vector<std::string>& arguments,
                         const std::vector<std::string>& environment);

}  // namespace memusage
