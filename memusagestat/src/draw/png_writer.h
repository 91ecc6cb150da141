// SPDX-License-Identifier: MIT
// PNG output through libpng, so the file can carry text chunks and is compressed the
// way we choose (Cairo's own PNG writer can do neither).
#pragma once

#include <cairo.h>

#include <string>
#include <vector>

#include "memusage/status.h"

namespace memusagestat {

struct PngText {
    std::string key;
    std::string text;
};

// Writes an opaque ARGB32 image surface as an 8-bit RGB PNG with tEXt chunks.
// Failing, a message for the user.
memusage::Status write_png(const std::string& path, cairo_surface_t* image,
                           const std::vector<PngText>& texts);

}  // namespace memusagestat
