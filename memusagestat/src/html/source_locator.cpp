// SPDX-License-Identifier: MIT
#include "html/source_locator.h"

#include <sys/stat.h>

#include <vector>

namespace memusagestat {
namespace {

bool regular_file(const std::string& path) {
    struct stat status {};
    return !path.empty() && ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// `file` relative to `directory` when it is inside it ("src/a.c" of "/b/src/a.c" in "/b");
// a relative file is relative to it already; empty when it is elsewhere.
std::string relative_to(const std::string& file, std::string directory) {
    if (file.empty()) return {};
    if (file.front() != '/') return file.starts_with("./") ? file.substr(2) : file;
    while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
    if (directory.empty() || directory.front() != '/') return {};
    const std::string prefix = directory == "/" ? directory : directory + "/";
    return file.starts_with(prefix) ? file.substr(prefix.size()) : std::string();
}

// The path's last components, the longest first: "a/b/c.c", "b/c.c", "c.c" of "/a/b/c.c".
std::vector<std::string> last_components(const std::string& file) {
    std::vector<std::string> tails;
    size_t at = 0;
    while (at < file.size() && file[at] == '/') ++at;
    while (at < file.size()) {
        tails.push_back(file.substr(at));
        const size_t slash = file.find('/', at);
        if (slash == std::string::npos) break;
        at = slash + 1;
    }
    return tails;
}

}  // namespace

SourceLocator::SourceLocator(std::string source_dir) : source_dir_(std::move(source_dir)) {
    while (source_dir_.size() > 1 && source_dir_.back() == '/') source_dir_.pop_back();
}

std::string SourceLocator::locate(const std::string& file, const std::string& comp_dir) const {
    if (regular_file(file)) return file;
    if (source_dir_.empty() || file.empty()) return {};
    const std::string under = source_dir_ + "/";
    if (const std::string relative = relative_to(file, comp_dir); !relative.empty())
        if (regular_file(under + relative)) return under + relative;
    for (const std::string& tail : last_components(file))
        if (regular_file(under + tail)) return under + tail;
    return {};
}

}  // namespace memusagestat
