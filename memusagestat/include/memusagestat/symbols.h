// SPDX-License-Identifier: MIT
// Where symbols come from when the run was on another machine (a board): a copy of its
// files on this one. Set from the command line (memusagestat --sysroot=DIR) before any
// report is made; every module's path is then looked up as DIR/PATH.
#pragma once

#include <string>

namespace memusagestat {

void set_symbol_sysroot(const std::string& directory);

}  // namespace memusagestat
