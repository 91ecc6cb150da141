#include "temporary_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace memusage {

TemporaryFile::~TemporaryFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
}

std::string TemporaryFile::create() {
    const char* directory = std::getenv("TMPDIR");
    if (!directory || !*directory) directory = "/tmp";
    std::string pattern = std::string(directory) + "/memusage.XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0) {
        return "cannot create a temporary file in " + std::string(directory) + ": " +
               std::strerror(errno);
    }
    ::close(fd);
    path_ = name.data();
    return {};
}

}  // namespace memusage
