// SPDX-License-Identifier: MIT
// Finds the file a command name means, the way a shell does: names with a slash are paths,
// others are searched for in PATH.
#pragma once

#include <string>

namespace memusage {

struct ProgramLookup {
    std::string path;  // the file to execute, when found
    int error = 0;     // errno explaining why not: ENOENT, EACCES, ...
};

// search_path: the value of PATH, or nullptr when PATH is unset.
ProgramLookup find_program(const std::string& name, const char* search_path);

}  // namespace memusage
