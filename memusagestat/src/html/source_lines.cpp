// SPDX-License-Identifier: MIT
#include "html/source_lines.h"

#include <sys/stat.h>

#include <fstream>

namespace memusagestat {
namespace {

// A line cut at a character's start, so that the cut never splits UTF-8 (the JSON writer
// refuses invalid UTF-8).
std::string bounded(const std::string& line) {
    if (line.size() <= SourceLines::kMaxLineBytes) return line;
    size_t cut = SourceLines::kMaxLineBytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xc0) == 0x80) --cut;
    return line.substr(0, cut) + "\xe2\x80\xa6";  // …
}

SourceFile read_file(const std::string& path) {
    SourceFile file;
    file.path = path;
    if (path.empty()) return file;
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) {
        file.state = SourceFile::State::unreadable;
        return file;
    }
    file.bytes = static_cast<uint64_t>(status.st_size);
    if (file.bytes > SourceLines::kMaxFileBytes) {
        file.state = SourceFile::State::too_large;
        return file;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        file.state = SourceFile::State::unreadable;
        return file;
    }
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        file.lines.push_back(std::move(line));
    }
    file.state = SourceFile::State::read;
    return file;
}

}  // namespace

const SourceFile& SourceLines::file(const std::string& file, const std::string& comp_dir) {
    auto found = files_.find(file);
    if (found != files_.end()) return found->second;
    if (files_.size() >= kMaxFiles || file.empty()) return none_;
    return files_.emplace(file, read_file(locator_.locate(file, comp_dir))).first->second;
}

std::optional<std::string> SourceLines::line(const std::string& file, const std::string& comp_dir,
                                             int line) {
    const SourceFile& source = this->file(file, comp_dir);
    if (source.state != SourceFile::State::read || line < 1 ||
        static_cast<size_t>(line) > source.lines.size())
        return {};
    return bounded(source.lines[static_cast<size_t>(line) - 1]);
}

}  // namespace memusagestat
