// SPDX-License-Identifier: MIT
// The text of source lines, for the frames of a report: each file read once, only files of
// bounded size, each line cut to a bounded length, so a report never grows with the sources.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace memusagestat {

class SourceLines {
  public:
    static constexpr size_t kMaxFileBytes = size_t{8} << 20;
    static constexpr size_t kMaxLineBytes = 240;
    static constexpr size_t kMaxFiles = 4096;

    // Line `line` (from 1) of `path`; none when the file cannot be read here, is too large,
    // or is shorter.
    std::optional<std::string> line(const std::string& path, int line);

  private:
    const std::vector<std::string>* lines_of(const std::string& path);

    std::unordered_map<std::string, std::optional<std::vector<std::string>>> files_;
};

}  // namespace memusagestat
