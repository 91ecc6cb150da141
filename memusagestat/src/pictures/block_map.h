// SPDX-License-Identifier: MIT
// The block map (Moreta and Telea's picture): x is time (or calls), y is address with the
// empty ranges folded out, every block a bar from its allocation to its free, coloured by
// site, thread or size; blocks never freed reach the right edge, tinted red and marked in
// the strip beside it. Drawn through an accumulation buffer: millions of blocks blend.
#pragma once

#include <cairo.h>

#include <string>
#include <vector>

#include "draw/picture_style.h"
#include "pictures/address_folding.h"
#include "pictures/coverage_buffer.h"
#include "read/block_replay.h"
#include "read/event_scan.h"

namespace memusagestat {

// The plot's inside for a picture of this size (addresses on the left, the legend on the
// right).
PlotFrame block_map_frame(unsigned width, unsigned height);
inline constexpr double kFoldRows = 9;  // the band that marks a fold

// The colours of sizes: light for small blocks, dark for large, on a log scale.
Colour size_colour(uint64_t size, uint64_t smallest, uint64_t largest);

struct BlockMapSpec {
    unsigned width = 800, height = 600;
    std::string title;
    std::string note;
    EventAxis axis;
    std::vector<LegendEntry> legend;
    uint64_t blocks = 0;  // drawn, for the legend's last line
};

// Second pass: every block life of the recording into the buffer.
struct BlockPainting {
    const AddressFolding& folding;
    const EventPlacement& placement;
    CoverageBuffer& buffer;
    std::function<Rgb8(const BlockLife&)> colour;
    uint64_t blocks = 0;
    void operator()(const BlockLife& life);
};

void plot_block_map(cairo_t* cr, const BlockMapSpec& spec, const CoverageBuffer& buffer,
                    const AddressFolding& folding);

}  // namespace memusagestat
