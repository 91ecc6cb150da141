// SPDX-License-Identifier: MIT
// The house style every picture shares with the memusage graph: DejaVu Sans lettering sized
// by the picture, the frame's blue, the title on top, byte counts in k/M, the x axis of
// calls or time, a palette of distinct colours (red kept for leaks) and a legend.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <string>
#include <vector>

#include "draw/lettering.h"
#include "draw/text_painter.h"

namespace memusagestat {

struct Colour {
    double r, g, b;
};
inline constexpr Colour kWhite{1, 1, 1};
inline constexpr Colour kFrameBlue{0.1, 0.1, 0.55};  // frame, axis text, title
inline constexpr Colour kGridGrey{0.55, 0.55, 0.55};
inline constexpr Colour kRestGrey{0.74, 0.74, 0.74};  // "everything else" in a legend
inline constexpr Colour kLeakRed{0.84, 0.1, 0.11};

void set_colour(cairo_t* cr, Colour colour, double alpha = 1);

// Distinct colours for the top entries of a legend (sites, threads): no red, no grey.
inline constexpr unsigned kPaletteSize = 8;
Colour palette_colour(unsigned index);

// The lettering size for a picture of this size (the memusage graph's rule).
double lettering_size(unsigned width, unsigned height);
// The new pictures' rule: the same up to 800x600, then growing with the square root of
// the scale, so that a 4000x3000 picture shown smaller is still read (23 pixels there).
double picture_lettering_size(unsigned width, unsigned height);

// A plot's inside in device units.
struct PlotFrame {
    double left, right, top, bottom;
    double width() const { return right - left; }
    double height() const { return bottom - top; }
};

// Twenty-one tick marks under the frame's bottom line, from its left edge to its right.
void draw_axis_ticks(cairo_t* cr, const PlotFrame& frame);

// Dashed grey lines across the frame at a quarter, half and three quarters of its height.
void draw_quarter_lines(cairo_t* cr, const PlotFrame& frame);

// The frame's outline, one pixel outside its inside.
void draw_frame(cairo_t* cr, const PlotFrame& frame);

// How every new picture starts: a white page with its lettering prepared and its title
// line (bold, centred, a little larger than the lettering) at the top. Returns the
// painter of the picture's lettering.
TextPainter begin_picture(cairo_t* cr, unsigned width, unsigned height, const std::string& title);

// `bytes` for people: "950 bytes", "12.5 KiB", "3.2 MiB", "1.1 GiB".
std::string bytes_text(uint64_t bytes);
// A count with thousands separated: "12,345,678".
std::string count_text(uint64_t count);

// `text` cut at the end with an ellipsis to fit `room` pixels at the context's current
// size; empty when not even one character and the ellipsis fit.
std::string fitted_text(cairo_t* cr, const std::string& text, double room);

// The x axis under a plot of events: 20 ticks, 0 at the left, the count of events (or the
// run's duration by time) at the right, and what the axis counts in the middle.
struct EventAxis {
    bool time_based = false;
    uint64_t events = 0;
    double seconds = 0;  // the run's duration by time; 0 when unknown
};
void draw_event_axis(cairo_t* cr, const TextPainter& text, const PlotFrame& frame,
                     const EventAxis& axis, double baseline);

// The left scale of bytes: labels at 0, the quarters and the top, dashed quarter lines.
void draw_bytes_scale(cairo_t* cr, const TextPainter& text, const PlotFrame& frame, uint64_t top,
                      double room);

// A legend: a swatch and a label per entry, top to bottom from (x, y), labels cut to fit
// `width`; entries that do not fit `height` are left out but for a last "... N more" line.
struct LegendEntry {
    Colour colour;
    std::string label;
    bool outlined = false;  // a red outline: the leak marker
};
void draw_legend(cairo_t* cr, const TextPainter& text, const std::vector<LegendEntry>& entries,
                 double x, double y, double width, double height);

// A message centred in the frame, for a picture with nothing to show.
void draw_centred_message(cairo_t* cr, const TextPainter& text, const PlotFrame& frame,
                          const std::string& message);

}  // namespace memusagestat
