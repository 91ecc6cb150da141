// SPDX-License-Identifier: MIT
// The pictures' text, laid out by Pango: fontconfig chooses DejaVu Sans where it is installed
// and, character by character, any installed font that can draw what DejaVu cannot (a title
// in Chinese, Arabic or emoji). The size is the Cairo context's font size
// (cairo_set_font_size), so the drawing code sets sizes as it always has.
#pragma once

#include <cairo.h>

#include <string>
#include <string_view>

namespace memusagestat {

enum class FontWeight { regular, bold };

// Gives the context its text settings (anti-aliased, unhinted: the letters' places do not
// snap to pixels, so a label's width is the same at every scale) in the regular weight.
void prepare_lettering(cairo_t* cr);
void use_face(cairo_t* cr, FontWeight weight);

struct TextExtents {
    double x_bearing;  // from the start point to the first ink
    double x_advance;  // from the start point to where the next text would start
};
TextExtents measure_text(cairo_t* cr, const std::string& text);

// Draws `text` with its baseline at the current point and moves the point past it. Returns
// how many of its characters no installed font can draw (they show as boxes).
int draw_text(cairo_t* cr, const std::string& text);

// `text` with every byte that does not begin a valid UTF-8 sequence replaced by U+FFFD:
// titles come from the command line in whatever encoding the user's shell had.
std::string with_valid_utf8(std::string_view text);

}  // namespace memusagestat
