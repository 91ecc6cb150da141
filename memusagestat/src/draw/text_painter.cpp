// SPDX-License-Identifier: MIT
#include "draw/text_painter.h"

#include "draw/lettering.h"
#include "draw/picture_output.h"

namespace memusagestat {

bool TextPainter::fits(const std::string& text, double room, double size) const {
    return size_for(text, room, size) > 0;
}

bool TextPainter::draw(const std::string& text, double x, double y, Align align, double room,
                       double size) const {
    const double fitted = size_for(text, room, size > 0 ? size : base_size_);
    if (fitted <= 0) return false;
    cairo_set_font_size(cr_, fitted);
    const TextExtents ext = measure_text(cr_, text);
    double start = x - ext.x_bearing;
    if (align == Align::centre) start = x - ext.x_advance / 2;
    if (align == Align::right) start = x - ext.x_advance;
    cairo_move_to(cr_, start, y);
    show_text(cr_, text);
    return true;
}

double TextPainter::size_for(const std::string& text, double room, double size) const {
    cairo_set_font_size(cr_, size);
    const TextExtents ext = measure_text(cr_, text);
    if (ext.x_advance <= room) return size;
    const double shrunk = size * room / ext.x_advance;
    return shrunk >= kSmallestLegible ? shrunk : 0;
}

}  // namespace memusagestat
