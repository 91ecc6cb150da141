// SPDX-License-Identifier: MIT
// Where a source file the debug information names is on this machine: at its recorded path,
// else, for a tree moved since the build (--source-dir=DIR), under DIR by its path relative to
// its compile directory, then by its last components, the longest first.
#pragma once

#include <string>

namespace memusagestat {

class SourceLocator {
  public:
    // `source_dir` empty: files are read at their recorded paths only.
    explicit SourceLocator(std::string source_dir = {});

    // The path to read `file` at (a regular file), or empty when it is found nowhere.
    // `comp_dir`: the compile directory of the unit that names it ("" when unknown).
    std::string locate(const std::string& file, const std::string& comp_dir) const;

    const std::string& source_dir() const { return source_dir_; }

  private:
    std::string source_dir_;
};

}  // namespace memusagestat
