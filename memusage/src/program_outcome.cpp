#include "program_outcome.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace memusage {

ProgramOutcome outcome_from_wait_status(int wait_status) {
    if (WIFSIGNALED(wait_status)) {
        return {ProgramOutcome::Kind::killed, WTERMSIG(wait_status),
                static_cast<bool>(WCOREDUMP(wait_status))};
    }
    return {ProgramOutcome::Kind::exited, WEXITSTATUS(wait_status), false};
}

int driver_exit_status(const ProgramOutcome& outcome) {
    switch (outcome.kind) {
        case ProgramOutcome::Kind::exited:
            return outcome.value;
        case ProgramOutcome::Kind::killed:
            return 128 + outcome.value;
        case ProgramOutcome::Kind::not_run:
            break;
    }
    return 127;
}

namespace {

// Why exec said ENOENT of a file that exists: the interpreter its "#!" line names is missing,
// or, for a compiled program, the dynamic loader it was linked for. Empty when `path` does
// not exist either.
std::string missing_interpreter(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (path.empty() || !file) return {};
    std::string line;
    std::getline(file, line);
    if (!line.starts_with("#!"))
        return "the dynamic loader it was built for (its ELF interpreter) is not on this machine";
    const size_t start = line.find_first_not_of(" \t", 2);
    if (start == std::string::npos) return "its \"#!\" line names no interpreter";
    const size_t end = line.find_first_of(" \t\r", start);
    return "its interpreter " + line.substr(start, end - start) + " was not found";
}

}  // namespace

std::string describe_outcome(const std::string& program, const ProgramOutcome& outcome,
                             const std::string& path) {
    switch (outcome.kind) {
        case ProgramOutcome::Kind::exited:
            return {};
        case ProgramOutcome::Kind::killed: {
            const char* abbreviation = ::sigabbrev_np(outcome.value);
            std::string text =
                "memusage: '" + program + "' was killed by signal " + std::to_string(outcome.value);
            if (abbreviation) {
                text +=
                    std::string(" (SIG") + abbreviation + ", " + ::strsignal(outcome.value) + ")";
            }
            if (outcome.core_dumped) text += ", core dumped";
            return text;
        }
        case ProgramOutcome::Kind::not_run:
            break;
    }
    bool searched_path = program.find('/') == std::string::npos;
    if (outcome.value == ENOENT && searched_path) {
        return "memusage: cannot run '" + program + "': command not found";
    }
    if (outcome.value == ENOENT) {
        if (std::string missing = missing_interpreter(path); !missing.empty())
            return "memusage: cannot run '" + program + "': " + missing;
    }
    return "memusage: cannot run '" + program + "': " + std::strerror(outcome.value);
}

}  // namespace memusage
