// SPDX-License-Identifier: MIT
// The driver built for a board (MEMUSAGE_BOARD) whose ncurses run-time packages were not
// installed where it was built (memusage/CMakeLists.txt): the live view's terminal is not
// built, so --live and --watch are refused before anything runs; --ps, which needs no
// terminal, lists the board's profiled processes as on the desktop.
#include "live/live_session.h"
#include "live/terminal_view.h"

namespace memusage::live {

Status terminal_problem() {
    return Failure{
        "the live view is not built into this memusage (built for a board without "
        "its ncurses): list the profiled processes with 'memusage --ps'"};
}

Result<ViewEnd> show_live_view(const ViewSource&) { return Failure{terminal_problem().error()}; }

// Never reached: run() refuses --live by terminal_problem() before starting the program.
ProgramOutcome run_with_live_view(const std::string&, const std::vector<std::string>&,
                                  const std::vector<std::string>&) {
    return {};
}

}  // namespace memusage::live
