// SPDX-License-Identifier: MIT
// The report's `frames` (web/DATA.md): each (function, file, line, module) once, with its
// source line when the file is readable here, shared by the sites' stacks and the stack
// peaks' frames. Bounded: once full, a frame not in it has no index.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "html/source_lines.h"
#include "sites/symbolizer.h"

namespace memusagestat {

class FrameTable {
  public:
    // Writes into `frames`, which it makes an empty array; source files are looked for by
    // `locator`.
    FrameTable(size_t bound, nlohmann::json& frames, SourceLocator locator = SourceLocator());

    // The frame's index; -1 when the table is full.
    int64_t index_of(const SourceFrame& frame);
    // A frame was left out because the table was full.
    bool full() const { return full_; }
    size_t bound() const { return bound_; }
    // The source files of the frames, as found and read for their `source` lines.
    SourceLines& sources() { return sources_; }

  private:
    size_t bound_;
    bool full_ = false;
    nlohmann::json& frames_;
    std::map<std::tuple<std::string, std::string, int, std::string>, int64_t> indexes_;
    SourceLines sources_;
};

}  // namespace memusagestat
