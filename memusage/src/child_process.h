// SPDX-License-Identifier: MIT
// Runs the program as a child and waits for it, passing on the signals a user sends to stop
// it, so that the driver outlives the program and can clean up after it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "program_outcome.h"

namespace memusage {

// path: the file to execute; arguments[0] is what the program sees as its name.
// What the live view (--live) adds: the program's standard output and error go to these
// descriptors (closed here once the program has them), and `while_running` runs once the
// program has started, before it is waited for.
struct ChildWatch {
    int output_fd = -1;
    int error_fd = -1;
    std::function<void(pid_t)> while_running;
};

ProgramOutcome run_child(const std::string& path, const std::vector<std::string>& arguments,
                         const std::vector<std::string>& environment,
                         const ChildWatch* watch = nullptr);

}  // namespace memusage
