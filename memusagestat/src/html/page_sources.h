// SPDX-License-Identifier: MIT
// The report's `sources` (web/DATA.md): the text of the source files the shown sites' frames
// name, for the source view; each file bounded, all of them within what is left of the page's
// budget. A file left out is listed with the reason.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "html/source_lines.h"

namespace memusagestat {

struct SourceBounds {
    size_t file_bytes = size_t{1} << 20;  // a larger file is listed without its text
    size_t all_bytes = size_t{8} << 20;   // the texts of all the files together, at most
};

// From the report's `sites` and `frames` (already written): every file their frames name,
// the files holding the most allocated bytes first. `room`: what the page may still grow by,
// which bounds the texts too.
nlohmann::json sources_json(const nlohmann::json& sites, const nlohmann::json& frames,
                            SourceLines& sources, const SourceBounds& bounds, size_t room);

}  // namespace memusagestat
