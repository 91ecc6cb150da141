// SPDX-License-Identifier: MIT
#include "graph/plot.h"

#include <memusage/wide_arithmetic.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "draw/lettering.h"
#include "draw/picture_style.h"
#include "draw/scale_labels.h"
#include "draw/text_painter.h"

namespace memusagestat {

namespace {

constexpr Colour kBackground{1, 1, 1};
constexpr Colour kFrame{0.1, 0.1, 0.55};
constexpr Colour kHeap{0.85, 0.05, 0.05};
constexpr Colour kStack{0.0, 0.5, 0.0};
constexpr Colour kTotal{0, 0, 0};
constexpr Colour kTimeStrip{1.0, 0.8, 0.0};
constexpr Colour kAxisText{0.1, 0.1, 0.55};

// Frame geometry in device units; a column c covers x in [left + c, left + c + 1).
using Frame = PlotFrame;

// The centre of the pixel row a value falls in: a flat curve then covers one crisp row
// instead of smearing over two half-lit ones. Rows run from the frame's top row to the
// row just above its bottom line, so a zero stays visible.
double value_y(const Frame& frame, uint64_t value, uint64_t top) {
    const double fraction = static_cast<double>(std::min(value, top)) / static_cast<double>(top);
    const double y = frame.bottom - fraction * frame.height();
    return std::min(std::floor(y), frame.bottom - 1) + 0.5;
}

// One curve from the envelope. Each column's full extent (min to max) is a filled bar,
// so spikes and fast oscillations between two pixels stay visible; a polyline joins each
// column to the previous column's last value. Bars are filled rectangles rather than
// stroked segments because Cairo fills boxes far faster than it strokes overlapping paths,
// which matters when every column of a huge run spans most of the height.
void draw_curve(cairo_t* cr, const Frame& frame, const EnvelopeSeries& series,
                ValueRange Column::*curve, uint64_t top, Colour colour, double line_width) {
    const auto columns = series.columns();
    set_colour(cr, colour);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const ValueRange& range = columns[c].*curve;
        if (columns[c].empty() || range.empty()) continue;
        const double low = value_y(frame, range.min, top);
        const double high = value_y(frame, range.max, top);
        if (low - high < 1) continue;  // the polyline covers it
        const double x = frame.left + series.point_x(c);
        cairo_rectangle(cr, x - line_width / 2, high, line_width, low - high);
    }
    cairo_fill(cr);

    // Every curve starts at the left edge from 0, where the run started with nothing
    // allocated, as glibc's memusagestat draws it.
    bool started = false;
    double previous_last = value_y(frame, 0, top);
    cairo_move_to(cr, frame.left, previous_last);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const ValueRange& range = columns[c].*curve;
        if (columns[c].empty() || range.empty()) continue;
        const double x = frame.left + series.point_x(c);
        const double low = value_y(frame, range.min, top);
        const double high = value_y(frame, range.max, top);
        const double last = value_y(frame, range.last, top);
        // Only the joining segment is stroked; the move within the column is the bar's.
        // Separate segments keep the stroker from building one huge self-overlapping
        // polygon out of a curve that swings across the whole height in every column.
        cairo_line_to(cr, x, std::clamp(previous_last, high, low));
        cairo_move_to(cr, x, last);
        cairo_line_to(cr, x, last);  // a dot, in case this column is the only one
        started = true;
        previous_last = last;
    }
    if (!started) {
        cairo_new_path(cr);
        return;
    }
    cairo_set_line_width(cr, line_width);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_stroke(cr);
}

// Which quarters of the scales get a label: all five when there is room, else the
// bottom and the top only (a 80-pixel-high picture has 40 pixels of plot).
bool room_for_quarters(const Frame& frame, double font_size) {
    return frame.height() / 4 >= font_size * 1.3;
}

void draw_scale_labels(cairo_t* cr, const TextPainter& text, const Frame& frame, uint64_t top,
                       Colour colour, bool left) {
    set_colour(cr, colour);
    const bool quarters = room_for_quarters(frame, text.base_size());
    const double room = kInsetX - 4;
    for (unsigned q = 0; q <= 4; ++q) {
        if (!quarters && q != 0 && q != 4) continue;
        const double y = frame.bottom - frame.height() * q / 4 + text.centring_offset();
        const std::string label = scale_label(quarter_value(top, q), top);
        if (left)
            text.draw(label, frame.left - 3, y, Align::right, room);
        else
            text.draw(label, frame.right + 3, y, Align::left, room);
    }
}

// "allocated memory" / "used stack" along the outer edge, in the gap between the labels
// of the half and three-quarter lines (or between bottom and top on tiny pictures).
void draw_scale_title(cairo_t* cr, const TextPainter& text, const Frame& frame, bool left,
                      const std::string& long_text, const std::string& short_text, Colour colour) {
    const bool quarters = room_for_quarters(frame, text.base_size());
    const double gap_centre =
        quarters ? frame.bottom - frame.height() * 5 / 8 : frame.bottom - frame.height() / 2;
    const double room = (quarters ? frame.height() / 4 : frame.height()) - 1.6 * text.base_size();
    const double size = text.base_size();
    const std::string& chosen = text.fits(long_text, room, size) ? long_text : short_text;
    const double x = left ? 2 + size * 0.8 : frame.right + kInsetX - 2 - size * 0.2;
    cairo_save(cr);
    cairo_translate(cr, x, gap_centre);
    cairo_rotate(cr, -M_PI / 2);
    set_colour(cr, colour);
    text.draw(chosen, 0, 0, Align::centre, room);
    cairo_restore(cr);
}

// The strip under the axis marks the first half of every tenth of the run's time (the
// time's percentage of the run ends in 0 to 4), as glibc's memusagestat does. By time,
// those are fixed stretches of the axis, cut where glibc cuts them. By calls, glibc
// colours the stretch of each record by the time of the record before it: a column is
// yellow when any of its records' predecessors falls into a yellow part, and an empty
// column continues its neighbour.
std::vector<bool> yellow_columns(const PlotSpec& spec, const EnvelopeSeries& series) {
    const auto columns = series.columns();
    const std::size_t width = columns.size();
    std::vector<bool> yellow(width, false);
    if (spec.time_based) {
        for (std::size_t twentieth = 0; twentieth < 20; twentieth += 2)
            for (std::size_t c = twentieth * width / 20; c < (twentieth + 1) * width / 20; ++c)
                yellow[c] = true;
        return yellow;
    }
    if (spec.event_count == 0) return yellow;
    auto percent = [&](uint64_t time) -> uint64_t {
        if (spec.end_time <= spec.start_time) return 0;
        const uint64_t t = std::clamp(time, spec.start_time, spec.end_time);
        return memusage::multiply_divide(t - spec.start_time, 100, spec.end_time - spec.start_time);
    };
    // Times from `from` to `to` (in file order, so not decreasing) reach a yellow part.
    auto reaches_yellow = [&](uint64_t from, uint64_t to) {
        const uint64_t first = percent(from), last = std::max(first, percent(to));
        return first % 10 < 5 || last >= first - first % 10 + 10;
    };
    uint64_t previous = spec.start_time;
    bool current = true;
    for (std::size_t c = 0; c < width; ++c) {
        const Column& column = columns[c];
        if (!column.empty()) {
            current =
                reaches_yellow(previous, column.records >= 2 ? column.before_last_time : previous);
            previous = column.last_time;
        }
        yellow[c] = current;
    }
    return yellow;
}

void draw_time_strip(cairo_t* cr, const PlotSpec& spec, const Frame& frame,
                     const EnvelopeSeries& series) {
    const std::vector<bool> yellow = yellow_columns(spec, series);
    set_colour(cr, kTimeStrip);
    std::size_t c = 0;
    while (c < yellow.size()) {
        std::size_t end = c;
        while (end < yellow.size() && yellow[end] == yellow[c]) ++end;
        // glibc's rows: the six below the frame's bottom line.
        if (yellow[c])
            cairo_rectangle(cr, frame.left + static_cast<double>(c), frame.bottom + 1,
                            static_cast<double>(end - c), 6);
        c = end;
    }
    cairo_fill(cr);
}

void draw_x_axis(cairo_t* cr, const TextPainter& text, const PlotSpec& spec, const Frame& frame) {
    draw_axis_ticks(cr, frame);

    set_colour(cr, kAxisText);
    const double baseline = spec.height - 3;
    text.draw("0", frame.left, baseline, Align::centre, kInsetX);
    const std::string count = std::to_string(spec.event_count);
    text.draw(count, frame.right, baseline, Align::centre, 2 * kInsetX - 4);

    // Between the two end labels, whatever the width.
    const double room =
        frame.width() - 2 * text.base_size() * 0.6 * (static_cast<double>(count.size()) / 2.0 + 1);
    const std::string full = spec.time_based ? "# memory handling function calls / time"
                                             : "# memory handling function calls";
    const std::string brief = spec.time_based ? "calls / time" : "# calls";
    const double centre = (frame.left + frame.right) / 2;
    if (!text.draw(full, centre, baseline, Align::centre, room))
        text.draw(brief, centre, baseline, Align::centre, room);
}

}  // namespace

void plot_graph(cairo_t* cr, const PlotSpec& spec, const EnvelopeSeries& series) {
    const Frame frame{static_cast<double>(kInsetX), static_cast<double>(spec.width - kInsetX),
                      static_cast<double>(kInsetY), static_cast<double>(spec.height - kInsetY)};
    const uint64_t heap_top = std::max<uint64_t>(spec.heap_top, 1);
    const uint64_t stack_top = std::max<uint64_t>(spec.stack_top, 1);

    set_colour(cr, kBackground);
    cairo_paint(cr);

    prepare_lettering(cr);
    const TextPainter text(cr, lettering_size(spec.width, spec.height));

    draw_time_strip(cr, spec, frame, series);

    const double line_width = std::clamp(std::min(spec.width, spec.height) / 1000.0, 1.0, 2.5);
    cairo_save(cr);
    cairo_rectangle(cr, frame.left - 1, frame.top - 1, frame.width() + 2, frame.height() + 2);
    cairo_clip(cr);
    // The total is drawn first and wider: where the stack is negligible it coincides with
    // the heap, and the heap then shows as a red line with a black rim instead of vanishing.
    if (spec.total) draw_curve(cr, frame, series, &Column::total, heap_top, kTotal, line_width * 2);
    draw_curve(cr, frame, series, &Column::stack, stack_top, kStack, line_width);
    draw_curve(cr, frame, series, &Column::heap, heap_top, kHeap, line_width);
    cairo_restore(cr);
    // Over the curves, like glibc's: a filled-looking curve must not hide the scale.
    draw_quarter_lines(cr, frame);

    set_colour(cr, kFrame);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, frame.left - 0.5, frame.top - 0.5, frame.width() + 1, frame.height() + 1);
    cairo_stroke(cr);

    draw_scale_labels(cr, text, frame, heap_top, kHeap, true);
    draw_scale_labels(cr, text, frame, stack_top, kStack, false);
    draw_scale_title(cr, text, frame, true, "allocated memory", "heap", kHeap);
    draw_scale_title(cr, text, frame, false, "used stack", "stack", kStack);
    draw_x_axis(cr, text, spec, frame);

    if (!spec.title.empty()) {
        use_face(cr, FontWeight::bold);
        set_colour(cr, kAxisText);
        text.draw(spec.title, spec.width / 2.0, kInsetY - 5, Align::centre, spec.width - 8,
                  text.base_size() + 1);
    }
}

}  // namespace memusagestat
