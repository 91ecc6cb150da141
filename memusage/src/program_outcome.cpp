#include "program_outcome.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstring>

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

std::string describe_outcome(const std::string& program, const ProgramOutcome& outcome) {
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
    return "memusage: cannot run '" + program + "': " + std::strerror(outcome.value);
}

}  // namespace memusage
