// SPDX-License-Identifier: MIT
// How the profiled program ended, and what the driver makes of it: its exit status and,
// when it did not simply exit, a line for the user.
#pragma once

#include <string>

namespace memusage {

struct ProgramOutcome {
    enum class Kind { exited, killed, not_run };
    Kind kind = Kind::not_run;
    int value = 0;  // exit status, signal number or errno, by kind
    bool core_dumped = false;
};

ProgramOutcome outcome_from_wait_status(int wait_status);

// The program's own status; 128+N for signal N; 127 when it never ran.
int driver_exit_status(const ProgramOutcome& outcome);

// Empty for a normal exit.
// `path`, when given, is the file found for `program`: a run that failed with ENOENT
// although that file exists lacked its interpreter, which the message then names.
std::string describe_outcome(const std::string& program, const ProgramOutcome& outcome,
                             const std::string& path = {});

}  // namespace memusage
