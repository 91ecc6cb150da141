// SPDX-License-Identifier: MIT
#include "output/whole_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace memusagestat {

std::string cannot_write(const std::string& path, int error) {
    return "cannot write " + path + ": " + std::strerror(error);
}

memusage::Status write_whole_file(const std::string& path, std::string_view content) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return memusage::Failure{cannot_write(path, errno)};
    int error = 0;
    if (std::fwrite(content.data(), 1, content.size(), file) != content.size()) error = errno;
    // A buffered write fails only now: the close's errno when the writes all went.
    if (std::fclose(file) != 0 && error == 0) error = errno;
    if (error != 0) return memusage::Failure{cannot_write(path, error)};
    return {};
}

}  // namespace memusagestat
