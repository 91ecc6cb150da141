// SPDX-License-Identifier: MIT
// The source files the report's frames name: each found (SourceLocator) and read once, only
// files of bounded size, so a report never grows with the sources; a line of one for a
// frame's `source`, cut to a bounded length, and the whole file for the source view.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "html/source_locator.h"

namespace memusagestat {

// One source file as the report found it.
struct SourceFile {
    enum class State { read, missing, too_large, unreadable };
    State state = State::missing;
    std::string path;  // where it was read (or found, too large); empty when missing
    uint64_t bytes = 0;
    std::vector<std::string> lines;  // whole, without their line ends; read only
};

class SourceLines {
  public:
    static constexpr size_t kMaxFileBytes = size_t{8} << 20;
    static constexpr size_t kMaxLineBytes = 240;
    static constexpr size_t kMaxFiles = 4096;

    explicit SourceLines(SourceLocator locator = SourceLocator()) : locator_(std::move(locator)) {}

    // Line `line` (from 1) of `file`, cut to kMaxLineBytes; none when the file cannot be read
    // here, is too large, or is shorter. `comp_dir`: its unit's compile directory.
    std::optional<std::string> line(const std::string& file, const std::string& comp_dir, int line);

    // The file as found and read, for the frames' recorded path `file`; once kMaxFiles are
    // known, a file not yet met is missing.
    const SourceFile& file(const std::string& file, const std::string& comp_dir);

    const SourceLocator& locator() const { return locator_; }

  private:
    SourceLocator locator_;
    std::unordered_map<std::string, SourceFile> files_;
    SourceFile none_;
};

}  // namespace memusagestat
