// SPDX-License-Identifier: MIT
#include "temporary_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace memusage {
namespace {

// $TMPDIR when it names a directory, else /tmp: what glibc's own temporary files
// (tmpfile, tempnam) do, so a stale TMPDIR does not stop the run.
const char* temporary_directory() {
    const char* directory = std::getenv("TMPDIR");
    struct stat status {};
    if (directory && *directory && ::stat(directory, &status) == 0 && S_ISDIR(status.st_mode))
        return directory;
    return "/tmp";
}

}  // namespace

TemporaryFile::~TemporaryFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
}

Status TemporaryFile::create() {
    const char* directory = temporary_directory();
    std::string pattern = std::string(directory) + "/memusage.XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0) {
        return Failure{"cannot create a temporary file in " + std::string(directory) + ": " +
                       std::strerror(errno)};
    }
    ::close(fd);
    path_ = name.data();
    return {};
}

}  // namespace memusage
