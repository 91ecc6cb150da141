// SPDX-License-Identifier: MIT
// Draws the graph onto any Cairo surface: frame, scales, curves, axis, time strip, title.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <string>

#include "graph/envelope.h"

namespace memusagestat {

struct PlotSpec {
    unsigned width = 800;
    unsigned height = 600;
    std::string title;
    bool time_based = false;
    bool total = false;        // draw heap + stack; the two scales are then one
    uint64_t event_count = 0;  // written at the right end of the x axis
    uint64_t start_time = 0;   // the run's span, for the strip of tenths of time
    uint64_t end_time = 0;
    uint64_t heap_top = 0;   // the value at the top of the left scale
    uint64_t stack_top = 0;  // ... of the right scale
};

// The plot frame's insets: every column of the frame's inside is one envelope column.
inline constexpr unsigned kInsetX = 40;
inline constexpr unsigned kInsetY = 20;
inline unsigned plot_columns(unsigned width) { return width - 2 * kInsetX; }

void plot_graph(cairo_t* cr, const PlotSpec& spec, const EnvelopeSeries& series);

}  // namespace memusagestat
