// SPDX-License-Identifier: MIT
// memusage --live PROGRAM: the program runs with the view on the terminal. Its standard
// output and error are held meanwhile (they would scribble over the view) and passed on,
// in order within each, when the view closes: at `q`, while the program runs on, or at
// its end, so that the summary it prints at exit arrives as without --live.
#pragma once

#include <string>
#include <vector>

#include "program_outcome.h"

namespace memusage::live {

// When the view cannot be shown (the program runs on), the reason is said on standard
// error at once, before the program's held output.
ProgramOutcome run_with_live_view(const std::string& path,
                                  const std::vector<std::string>& arguments,
                                  const std::vector<std::string>& environment);

}  // namespace memusage::live
