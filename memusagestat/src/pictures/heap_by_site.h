// SPDX-License-Identifier: MIT
// The heap over time as stacked areas, one per top site (or thread) and one for the rest:
// each column of the plot shows what every slot held at the moment the heap was highest in
// that column, so the areas' top is the memusage graph's heap curve.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <string>
#include <vector>

#include "draw/picture_style.h"
#include "pictures/event_slots.h"
#include "read/block_replay.h"
#include "read/event_scan.h"
#include "read/events_reader.h"

namespace memusagestat {

struct StackedSeries {
    unsigned columns = 0, slots = 0;
    std::vector<int64_t> bytes;  // columns x slots, column-major: bytes[column * slots + slot]
    uint64_t top = 0;            // the highest column total
    int64_t at(unsigned column, unsigned slot) const { return bytes[column * slots + slot]; }
};

// The second pass: replays the recording into `columns` columns.
StackedSeries build_stacked(EventsReader& reader, const EventPlacement& placement,
                            const EventSlots& slots, unsigned columns);

struct StackedPlotSpec {
    unsigned width = 800, height = 600;
    std::string title;
    std::string note;  // under the legend: what is missing or was assumed
    EventAxis axis;
};

// The plot's inside for a picture of this size (the legend takes the right).
PlotFrame stacked_frame(unsigned width, unsigned height);

void plot_heap_by_site(cairo_t* cr, const StackedPlotSpec& spec, const StackedSeries& series,
                       const EventSlots& slots);

}  // namespace memusagestat
