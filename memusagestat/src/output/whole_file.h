// SPDX-License-Identifier: MIT
// An output file written whole from what is in memory (the sites' reports and exports, the
// HTML report, an SVG's text layer), and the one message every output gives when its file
// cannot be made or written.
#pragma once

#include <string>
#include <string_view>

#include "memusage/status.h"

namespace memusagestat {

// The message for an output `path` that could not be made or written, for the reason
// `error` (an errno): "cannot write PATH: REASON".
std::string cannot_write(const std::string& path, int error);

// Writes `content` as the whole of the file `path` (made, or emptied first); failing,
// cannot_write's message, the first failure's errno (a buffered write that fails only when
// the file is closed included).
memusage::Status write_whole_file(const std::string& path, std::string_view content);

}  // namespace memusagestat
