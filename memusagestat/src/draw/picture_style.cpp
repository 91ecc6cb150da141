// SPDX-License-Identifier: MIT
#include "draw/picture_style.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "draw/picture_output.h"
#include "draw/scale_labels.h"

namespace memusagestat {

void set_colour(cairo_t* cr, Colour c, double alpha) {
    cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

Colour palette_colour(unsigned index) {
    // Tableau's ten without its red and grey: distinct for most colour-blind readers too.
    static constexpr Colour kPalette[kPaletteSize] = {
        {0.31, 0.47, 0.65}, {0.95, 0.56, 0.17}, {0.35, 0.63, 0.31}, {0.69, 0.48, 0.63},
        {0.46, 0.72, 0.70}, {0.93, 0.79, 0.28}, {0.61, 0.46, 0.37}, {1.00, 0.62, 0.65}};
    return kPalette[index % kPaletteSize];
}

double lettering_size(unsigned width, unsigned height) {
    if (height >= 1000 && width >= 1000) return 12;
    if (height >= 300 && width >= 300) return 10.5;
    return 8;
}

double picture_lettering_size(unsigned width, unsigned height) {
    const double scale = std::min(width / 800.0, height / 600.0);
    return std::max(lettering_size(width, height), 10.5 * std::sqrt(scale));
}

void draw_frame(cairo_t* cr, const PlotFrame& frame) {
    set_colour(cr, kFrameBlue);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, frame.left - 0.5, frame.top - 0.5, frame.width() + 1, frame.height() + 1);
    cairo_stroke(cr);
}

namespace {

void draw_title(cairo_t* cr, const TextPainter& text, double width, double y,
                const std::string& title) {
    if (title.empty()) return;
    use_face(cr, FontWeight::bold);
    set_colour(cr, kFrameBlue);
    // Too long for the width even shrunk: cut, so that the picture still says what it is.
    cairo_set_font_size(cr, text.base_size() + 1);
    if (!text.draw(title, width / 2, y, Align::centre, width - 8, text.base_size() + 1))
        text.draw(fitted_text(cr, title, width - 8), width / 2, y, Align::centre, width - 8,
                  text.base_size() + 1);
    use_face(cr, FontWeight::regular);
}

}  // namespace

TextPainter begin_picture(cairo_t* cr, unsigned width, unsigned height, const std::string& title) {
    set_colour(cr, kWhite);
    cairo_paint(cr);
    prepare_lettering(cr);
    const TextPainter text(cr, picture_lettering_size(width, height));
    draw_title(cr, text, width, std::round(text.base_size() * 1.5), title);
    return text;
}

std::string bytes_text(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
    double value = static_cast<double>(bytes) / 1024;
    unsigned unit = 0;
    while (value >= 1024 && unit + 1 < std::size(kUnits)) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, value < 100 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
    return text;
}

std::string count_text(uint64_t count) {
    const std::string digits = std::to_string(count);
    std::string text;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

std::string fitted_text(cairo_t* cr, const std::string& text, double room) {
    auto width_of = [&](const std::string& s) { return measure_text(cr, s).x_advance; };
    if (width_of(text) <= room) return text;
    static const std::string kEllipsis = "\u2026";
    // Cut at character boundaries only (UTF-8 continuation bytes are 10xxxxxx).
    size_t low = 0, high = text.size();
    while (low < high) {  // the longest prefix that fits with the ellipsis
        size_t mid = (low + high + 1) / 2;
        while (mid > 0 && mid < text.size() && (text[mid] & 0xC0) == 0x80) --mid;
        if (mid <= low) {
            high = low;
            break;
        }
        if (width_of(text.substr(0, mid) + kEllipsis) <= room)
            low = mid;
        else
            high = mid - 1;
    }
    while (low > 0 && low < text.size() && (text[low] & 0xC0) == 0x80) --low;
    if (low == 0) return {};
    return text.substr(0, low) + kEllipsis;
}

void draw_axis_ticks(cairo_t* cr, const PlotFrame& frame) {
    set_colour(cr, kFrameBlue);
    cairo_set_line_width(cr, 1);
    for (unsigned i = 0; i <= 20; ++i) {
        const double x = std::round(frame.left + frame.width() * i / 20) - 0.5;
        cairo_move_to(cr, x, frame.bottom);
        cairo_line_to(cr, x, frame.bottom + 5);
    }
    cairo_stroke(cr);
}

void draw_event_axis(cairo_t* cr, const TextPainter& text, const PlotFrame& frame,
                     const EventAxis& axis, double baseline) {
    draw_axis_ticks(cr, frame);

    std::string right = std::to_string(axis.events);
    if (axis.time_based && axis.seconds > 0) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, axis.seconds < 10 ? "%.3g s" : "%.0f s",
                      axis.seconds);
        right = seconds;
    }
    text.draw("0", frame.left, baseline, Align::centre, 40);
    text.draw(right, frame.right, baseline, Align::centre, 76);
    const double room =
        frame.width() - 2 * text.base_size() * 0.6 * (static_cast<double>(right.size()) / 2.0 + 1);
    const std::string full = axis.time_based ? (axis.seconds > 0 ? "time" : "time (cycles)")
                                             : "# memory handling function calls";
    const std::string brief = axis.time_based ? "time" : "# calls";
    const double centre = (frame.left + frame.right) / 2;
    if (!text.draw(full, centre, baseline, Align::centre, room))
        text.draw(brief, centre, baseline, Align::centre, room);
}

void draw_quarter_lines(cairo_t* cr, const PlotFrame& frame) {
    // Neutral grey: each line belongs to every scale, and must not pass for a curve.
    const double dash[] = {4, 4};
    cairo_set_line_width(cr, 1);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_dash(cr, dash, 2, 0);
    set_colour(cr, kGridGrey);
    for (unsigned q = 1; q < 4; ++q) {
        const double y = std::round(frame.bottom - frame.height() * q / 4) - 0.5;
        cairo_move_to(cr, frame.left, y);
        cairo_line_to(cr, frame.right, y);
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
}

void draw_bytes_scale(cairo_t* cr, const TextPainter& text, const PlotFrame& frame, uint64_t top,
                      double room) {
    draw_quarter_lines(cr, frame);
    set_colour(cr, kFrameBlue);
    const bool quarters = frame.height() / 4 >= text.base_size() * 1.3;
    for (unsigned q = 0; q <= 4; ++q) {
        if (!quarters && q != 0 && q != 4) continue;
        const double y = frame.bottom - frame.height() * q / 4 + text.centring_offset();
        text.draw(scale_label(quarter_value(top, q), top), frame.left - 3, y, Align::right, room);
    }
}

void draw_legend(cairo_t* cr, const TextPainter& text, const std::vector<LegendEntry>& entries,
                 double x, double y, double width, double height) {
    const double size = text.base_size();
    const double line = std::round(size * 1.45);
    const double swatch = std::round(size * 0.9);
    const size_t fit = static_cast<size_t>(std::max(0.0, height / line));
    const bool cut = entries.size() > fit;
    const size_t shown = cut ? (fit > 0 ? fit - 1 : 0) : entries.size();
    cairo_set_font_size(cr, size);
    for (size_t i = 0; i < shown; ++i) {
        const LegendEntry& entry = entries[i];
        const double top = y + static_cast<double>(i) * line;
        cairo_rectangle(cr, x + 0.5, top + 0.5, swatch, swatch);
        set_colour(cr, entry.colour);
        cairo_fill_preserve(cr);
        set_colour(cr, entry.outlined ? kLeakRed : kGridGrey);
        cairo_set_line_width(cr, entry.outlined ? 2 : 1);
        cairo_stroke(cr);
        set_colour(cr, kFrameBlue);
        const double room = width - swatch - size * 0.5;
        const std::string label = fitted_text(cr, entry.label, room);
        if (!label.empty()) {
            cairo_move_to(cr, x + swatch + size * 0.5, top + swatch * 0.5 + text.centring_offset());
            show_text(cr, label, entry.label);
        }
    }
    if (cut && fit > 0) {
        set_colour(cr, kFrameBlue);
        const std::string more = "\u2026 " + std::to_string(entries.size() - shown) + " more";
        cairo_move_to(
            cr, x, y + static_cast<double>(shown) * line + swatch * 0.5 + text.centring_offset());
        show_text(cr, fitted_text(cr, more, width), more);
    }
}

void draw_centred_message(cairo_t* cr, const TextPainter& text, const PlotFrame& frame,
                          const std::string& message) {
    set_colour(cr, kFrameBlue);
    cairo_set_font_size(cr, text.base_size() + 1);
    const std::string shown = fitted_text(cr, message, frame.width() - 8);
    text.draw(shown, (frame.left + frame.right) / 2, (frame.top + frame.bottom) / 2, Align::centre,
              frame.width() - 8, text.base_size() + 1);
}

}  // namespace memusagestat
