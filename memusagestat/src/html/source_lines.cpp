// SPDX-License-Identifier: MIT
#include "html/source_lines.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

namespace memusagestat {
namespace {

// A line cut at a character's start, so that the cut never splits UTF-8 (the JSON writer
// refuses invalid UTF-8).
std::string bounded(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() <= SourceLines::kMaxLineBytes) return line;
    size_t cut = SourceLines::kMaxLineBytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xc0) == 0x80) --cut;
    line.resize(cut);
    return line + "\xe2\x80\xa6";  // …
}

}  // namespace

const std::vector<std::string>* SourceLines::lines_of(const std::string& path) {
    auto found = files_.find(path);
    if (found != files_.end()) return found->second ? &*found->second : nullptr;
    std::optional<std::vector<std::string>>& lines = files_[path];
    struct stat status {};
    if (files_.size() > kMaxFiles || path.empty() || ::stat(path.c_str(), &status) != 0 ||
        !S_ISREG(status.st_mode) || static_cast<size_t>(status.st_size) > kMaxFileBytes)
        return nullptr;
    std::ifstream file(path, std::ios::binary);
    if (!file) return nullptr;
    lines.emplace();
    std::string line;
    while (std::getline(file, line)) lines->push_back(bounded(std::move(line)));
    return &*lines;
}

std::optional<std::string> SourceLines::line(const std::string& path, int line) {
    const std::vector<std::string>* lines = lines_of(path);
    if (lines == nullptr || line < 1 || static_cast<size_t>(line) > lines->size()) return {};
    return (*lines)[static_cast<size_t>(line) - 1];
}

}  // namespace memusagestat
