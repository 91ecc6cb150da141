// SPDX-License-Identifier: MIT
#include "program_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace memusage {
namespace {

// 0 when path is an executable regular file, else the errno that running it would give.
int executable_error(const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) return errno;
    if (S_ISDIR(status.st_mode)) return EISDIR;
    if (!S_ISREG(status.st_mode) || ::access(path.c_str(), X_OK) != 0) return EACCES;
    return 0;
}

std::string default_search_path() {
    char buffer[256];
    size_t length = ::confstr(_CS_PATH, buffer, sizeof buffer);
    if (length == 0 || length > sizeof buffer) return "/bin:/usr/bin";
    return buffer;
}

}  // namespace

ProgramLookup find_program(const std::string& name, const char* search_path) {
    if (name.empty()) return {{}, ENOENT};
    if (name.find('/') != std::string::npos) {
        int error = executable_error(name);
        return {error == 0 ? name : std::string(), error};
    }
    std::string directories = search_path ? search_path : default_search_path();
    // Like execvp: a file that exists but cannot be run is reported only when nothing later
    // in PATH can be.
    int error = ENOENT;
    std::string_view rest = directories;
    while (true) {
        size_t colon = rest.find(':');
        std::string_view directory = rest.substr(0, colon);
        // An empty PATH entry means the current directory.
        std::string candidate =
            directory.empty() ? "./" + name : std::string(directory) + "/" + name;
        int candidate_error = executable_error(candidate);
        if (candidate_error == 0) return {candidate, 0};
        if (candidate_error != ENOENT && candidate_error != ENOTDIR) error = candidate_error;
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return {{}, error};
}

}  // namespace memusage
