// SPDX-License-Identifier: MIT
// The drawing library that memusagestat and `memusage -p` share.
#pragma once

#include <functional>
#include <string>

#include "memusage/status.h"

namespace memusagestat {

struct GraphOptions {
    std::string title;        // drawn centred on top; empty draws no title
    bool time_based = false;  // -t: x axis linear in time instead of in calls
    bool total = false;       // -T: also draw heap + stack, heap and stack on one scale
    unsigned width = 800;     // -x, at least 100
    unsigned height = 600;    // -y, at least 80
    // Receives warnings (a partial last record, ...); empty prints them on stderr.
    std::function<void(const std::string&)> on_warning;
};

// Smaller sizes are raised to these, like glibc; larger than kMaxPictureSide is refused,
// since a picture that size is a typing mistake and would cost gigabytes.
inline constexpr unsigned kMinPictureWidth = 100;
inline constexpr unsigned kMinPictureHeight = 80;
inline constexpr unsigned kMaxPictureSide = 10000;

// Fails, saying why, for a picture of a size that will not be drawn: for callers that must
// know before they produce the data (memusage -p checks before running the program).
memusage::Status picture_size_error(unsigned width, unsigned height);

// Draws the data file at data_path into out_path; the format follows out_path's
// extension (.svg, .pdf, anything else PNG). Failing, a message for the user (without
// the program name or a trailing newline).
memusage::Status draw_graph(const std::string& data_path, const std::string& out_path,
                            const GraphOptions& options);

}  // namespace memusagestat
