// SPDX-License-Identifier: MIT
// The live view on the terminal (ncurses): a profiled process's figures, read from its
// live-figures file and redrawn every second, until `q` or the process's end.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include "memusage/status.h"

namespace memusage::live {

// Fails, saying why, unless standard input and output are a terminal the view can use.
Status terminal_problem();

struct ViewSource {
    pid_t pid = 0;
    // True once the process has ended (the view then closes).
    std::function<bool()> ended;
    // Called about ten times a second while the view is up (the driver keeps the
    // program's output meanwhile).
    std::function<void()> tick;
    // How long to wait for the process's file to appear (a program just started).
    int wait_for_file_ms = 0;
    // While waiting: the collector's own word that it publishes nothing, and why (empty
    // while it has said nothing).
    std::function<std::string()> not_published;
};

enum class ViewEnd { quit, process_ended };

// Shows the view until `q` or the end of the process; fails, saying why, when the process
// has no figures to show.
Result<ViewEnd> show_live_view(const ViewSource& source);

}  // namespace memusage::live
