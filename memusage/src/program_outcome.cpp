// SPDX-License-Identifier: MIT
#include "program_outcome.h"

#include <elf.h>
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

// The dynamic loader a compiled program names (its PT_INTERP), or empty.
template <typename Header, typename ProgramHeader>
std::string elf_interpreter(std::ifstream& file) {
    Header header{};
    file.seekg(0);
    if (!file.read(reinterpret_cast<char*>(&header), sizeof header)) return {};
    if (header.e_phentsize != sizeof(ProgramHeader)) return {};
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        ProgramHeader segment{};
        file.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof segment));
        if (!file.read(reinterpret_cast<char*>(&segment), sizeof segment)) return {};
        if (segment.p_type != PT_INTERP || segment.p_filesz == 0 || segment.p_filesz > 4096)
            continue;
        std::string name(segment.p_filesz, '\0');
        file.seekg(static_cast<std::streamoff>(segment.p_offset));
        if (!file.read(name.data(), static_cast<std::streamsize>(name.size()))) return {};
        return name.substr(0, name.find('\0'));
    }
    return {};
}

// Why exec said ENOENT of a file that exists: the interpreter its "#!" line names is missing,
// or, for a compiled program, the dynamic loader it was linked for. Empty when `path` does
// not exist either.
std::string missing_interpreter(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (path.empty() || !file) return {};
    std::string line;
    std::getline(file, line);
    if (!line.starts_with("#!")) {
        file.clear();
        std::string loader;
        if (line.starts_with(ELFMAG) && line.size() > EI_CLASS)
            loader = line[EI_CLASS] == ELFCLASS64 ? elf_interpreter<Elf64_Ehdr, Elf64_Phdr>(file)
                                                  : elf_interpreter<Elf32_Ehdr, Elf32_Phdr>(file);
        if (loader.empty())
            return "the dynamic loader it was built for (its ELF interpreter) is not on this "
                   "machine";
        return "the dynamic loader it was built for, " + loader + ", is not on this machine";
    }
    // The kernel ends the interpreter's name at a space or a tab only: a carriage return
    // (a script saved with Windows line ends) is part of the name it looks for.
    const size_t start = line.find_first_not_of(" \t", 2);
    if (start == std::string::npos) return "its \"#!\" line names no interpreter";
    std::string name = line.substr(start, line.find_first_of(" \t", start) - start);
    if (name.ends_with('\r')) {
        name.pop_back();
        return "its interpreter is " + name +
               " followed by a carriage return, which is no file: the script has Windows line "
               "ends (dos2unix converts them)";
    }
    return "its interpreter " + name + " was not found";
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
    // A file found (in PATH too) that exec says is not there lacks its interpreter.
    if (outcome.value == ENOENT) {
        if (std::string missing = missing_interpreter(path); !missing.empty())
            return "memusage: cannot run '" + program + "': " + missing;
    }
    if (outcome.value == ENOENT && searched_path) {
        return "memusage: cannot run '" + program + "': command not found";
    }
    return "memusage: cannot run '" + program + "': " + std::strerror(outcome.value);
}

}  // namespace memusage
