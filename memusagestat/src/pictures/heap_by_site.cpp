// SPDX-License-Identifier: MIT
#include "pictures/heap_by_site.h"

#include <memusage/wide_arithmetic.h>

#include <algorithm>
#include <cmath>

#include "draw/picture_output.h"

namespace memusagestat {

namespace {

// Where the legend goes: a column on the right, as wide as the picture can spare.
double legend_width(unsigned width, double size) {
    return std::clamp(std::round(width * 0.3), 110.0, std::round(size * 38));
}

}  // namespace

StackedSeries build_stacked(EventsReader& reader, const EventPlacement& placement,
                            const EventSlots& slots, unsigned columns) {
    StackedSeries series;
    series.columns = std::max(columns, 1u);
    series.slots = slots.count();
    series.bytes.assign(static_cast<size_t>(series.columns) * series.slots, 0);
    std::vector<int64_t> highest(series.columns, -1);
    std::vector<int64_t> now(series.slots, 0);
    int64_t total = 0;
    auto keep = [&](unsigned column) {
        std::copy(now.begin(), now.end(),
                  series.bytes.begin() + static_cast<std::ptrdiff_t>(column) * series.slots);
        highest[column] = total;
    };

    BlockReplay replay;
    int carried_slot = -1;  // a resized block's slot, handed from the replay to the event
    const BlockReplay::Ended ended = [&](const BlockLife& life) {
        const unsigned slot = slots.slot_of(life.site, life.thread);
        now[slot] -= static_cast<int64_t>(life.size);
        total -= static_cast<int64_t>(life.size);
        if (life.resized_away) carried_slot = static_cast<int>(slot);
    };
    reader.rewind();
    RecordedEvent event;
    uint64_t index = 0;
    long column = -1;
    const uint64_t span = placement.span();
    while (reader.next(event)) {
        const uint64_t position = placement.position(index++, event.time);
        const long at = static_cast<long>(std::min<uint64_t>(
            memusage::multiply_divide(position, series.columns, span), series.columns - 1));
        // Columns passed without an event hold what the heap held then.
        for (long c = column + 1; c <= at; ++c) keep(static_cast<unsigned>(c));
        column = std::max(column, at);
        event.time = position;
        carried_slot = -1;
        replay.add(event, ended);
        if (event.kind == RecordedEvent::Kind::allocate) {
            const unsigned slot = slots.slot_of(event.site, event.thread);
            now[slot] += static_cast<int64_t>(event.size);
            total += static_cast<int64_t>(event.size);
        } else if (event.kind == RecordedEvent::Kind::resize) {
            const unsigned slot = carried_slot >= 0 ? static_cast<unsigned>(carried_slot)
                                                    : slots.slot_of(0, event.thread);
            now[slot] += static_cast<int64_t>(event.size);
            total += static_cast<int64_t>(event.size);
        }
        if (total > highest[static_cast<size_t>(column)]) keep(static_cast<unsigned>(column));
    }
    for (long c = column + 1; c < static_cast<long>(series.columns); ++c)
        keep(static_cast<unsigned>(c));
    for (unsigned c = 0; c < series.columns; ++c) {
        int64_t sum = 0;
        for (unsigned s = 0; s < series.slots; ++s) sum += std::max<int64_t>(series.at(c, s), 0);
        series.top = std::max(series.top, static_cast<uint64_t>(sum));
    }
    return series;
}

PlotFrame stacked_frame(unsigned width, unsigned height) {
    const double size = picture_lettering_size(width, height);
    const double top = std::round(size * 2.4);
    return {std::max(40.0, std::round(size * 4.2)), width - legend_width(width, size) - 10, top,
            height - std::round(size * 2)};
}

void plot_heap_by_site(cairo_t* cr, const StackedPlotSpec& spec, const StackedSeries& series,
                       const EventSlots& slots) {
    const TextPainter text = begin_picture(cr, spec.width, spec.height, spec.title);
    const PlotFrame frame = stacked_frame(spec.width, spec.height);

    const uint64_t top = std::max<uint64_t>(series.top, 1);
    auto y_of = [&](int64_t bytes) {
        return frame.bottom - static_cast<double>(std::max<int64_t>(bytes, 0)) /
                                  static_cast<double>(top) * frame.height();
    };
    // Each band from the running total below it to the running total with it: the
    // largest slot at the bottom, the rest on top.
    std::vector<int64_t> below(series.columns, 0), above(series.columns, 0);
    const double step = frame.width() / series.columns;
    for (unsigned s = 0; s < series.slots; ++s) {
        for (unsigned c = 0; c < series.columns; ++c)
            above[c] = below[c] + std::max<int64_t>(series.at(c, s), 0);
        cairo_new_path(cr);
        for (unsigned c = 0; c < series.columns; ++c) {
            cairo_line_to(cr, frame.left + c * step, y_of(above[c]));
            cairo_line_to(cr, frame.left + (c + 1) * step, y_of(above[c]));
        }
        for (unsigned c = series.columns; c-- > 0;) {
            cairo_line_to(cr, frame.left + (c + 1) * step, y_of(below[c]));
            cairo_line_to(cr, frame.left + c * step, y_of(below[c]));
        }
        cairo_close_path(cr);
        set_colour(cr, s == slots.rest() ? kRestGrey : palette_colour(s));
        cairo_fill(cr);
        below.swap(above);
    }
    draw_bytes_scale(cr, text, frame, top, frame.left - 4);
    draw_frame(cr, frame);
    draw_event_axis(cr, text, frame, spec.axis, spec.height - std::round(text.base_size() * 0.4));

    std::vector<LegendEntry> entries;
    for (size_t s = 0; s < slots.labels().size(); ++s)
        entries.push_back({palette_colour(static_cast<unsigned>(s)), slots.labels()[s]});
    entries.push_back({kRestGrey, slots.rest_label()});
    const double legend_x = frame.right + 12;
    const double legend_room = spec.width - legend_x - 4;
    double legend_height = frame.height();
    if (!spec.note.empty()) legend_height -= text.base_size() * 3;
    draw_legend(cr, text, entries, legend_x, frame.top, legend_room, legend_height);
    if (!spec.note.empty()) {
        set_colour(cr, kLeakRed);
        cairo_set_font_size(cr, text.base_size());
        cairo_move_to(cr, legend_x, frame.bottom - text.base_size() * 0.4);
        show_text(cr, fitted_text(cr, spec.note, legend_room), spec.note);
    }
}

}  // namespace memusagestat
