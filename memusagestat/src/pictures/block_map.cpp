// SPDX-License-Identifier: MIT
#include "pictures/block_map.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>

#include "draw/picture_output.h"

namespace memusagestat {

namespace {

double legend_width(unsigned width, double size) {
    return std::clamp(std::round(width * 0.27), 110.0, std::round(size * 38));
}

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIx64, value);
    return text;
}

Colour mix(Colour a, Colour b, double t) {
    return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

// The buffer as an image: each pixel's colour is the blend of the blocks over it, as opaque
// as they cover it (never fainter than a visible tint), hatched red where blocks never
// freed are.
using SurfacePtr = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
SurfacePtr blended_image(const CoverageBuffer& buffer) {
    SurfacePtr image(
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(buffer.width()),
                                   static_cast<int>(buffer.height())),
        cairo_surface_destroy);
    if (cairo_surface_status(image.get()) != CAIRO_STATUS_SUCCESS) return image;
    cairo_surface_flush(image.get());
    unsigned char* data = cairo_image_surface_get_data(image.get());
    const int stride = cairo_image_surface_get_stride(image.get());
    for (unsigned y = 0; y < buffer.height(); ++y) {
        auto* row = reinterpret_cast<uint32_t*>(data + static_cast<size_t>(y) * stride);
        for (unsigned x = 0; x < buffer.width(); ++x) {
            const CoverageBuffer::Pixel& p = buffer.pixel(x, y);
            if (p.touched == 0) {
                row[x] = 0xffffff;
                continue;
            }
            const double votes = static_cast<double>(p.weight) + p.touched;
            Colour colour{p.r / votes / 255, p.g / votes / 255, p.b / votes / 255};
            const double cover =
                std::min(1.0, static_cast<double>(p.weight) / CoverageBuffer::kWhole);
            colour = mix(kWhite, colour, 0.35 + 0.65 * cover);
            // Blocks never freed are hatched in red over their own colour, which stays
            // readable between the stripes.
            const double leaked = static_cast<double>(p.leaked) / p.touched;
            if (leaked >= 0.5 && (x + y) % 6 < 2)
                colour = kLeakRed;
            else if (leaked > 0)
                colour = mix(colour, kLeakRed, 0.4 * leaked);
            auto channel = [](double v) {
                return static_cast<uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
            };
            row[x] = channel(colour.r) << 16 | channel(colour.g) << 8 | channel(colour.b);
        }
    }
    cairo_surface_mark_dirty(image.get());
    return image;
}

}  // namespace

PlotFrame block_map_frame(unsigned width, unsigned height) {
    const double size = picture_lettering_size(width, height);
    return {std::round(size * 8.5), width - legend_width(width, size) - 14, std::round(size * 2.4),
            height - std::round(size * 2)};
}

Colour size_colour(uint64_t size, uint64_t smallest, uint64_t largest) {
    // A yellow-green-blue ramp (after viridis, lightest for the smallest).
    static constexpr Colour kRamp[] = {{0.99, 0.91, 0.14},
                                       {0.37, 0.79, 0.38},
                                       {0.13, 0.57, 0.55},
                                       {0.23, 0.32, 0.55},
                                       {0.27, 0.0, 0.33}};
    const double low = std::log2(static_cast<double>(std::max<uint64_t>(smallest, 1)));
    const double high = std::log2(static_cast<double>(std::max<uint64_t>(largest, 1)));
    const double at = std::log2(static_cast<double>(std::max<uint64_t>(size, 1)));
    const double t = high > low ? std::clamp((at - low) / (high - low), 0.0, 1.0) : 0.0;
    const double scaled = t * (std::size(kRamp) - 1);
    const size_t i = std::min(static_cast<size_t>(scaled), std::size(kRamp) - 2);
    return mix(kRamp[i], kRamp[i + 1], scaled - static_cast<double>(i));
}

void BlockPainting::operator()(const BlockLife& life) {
    if (folding.empty()) return;
    const double columns = buffer.width(), rows = buffer.height();
    const double span = static_cast<double>(placement.span());
    const double x0 = static_cast<double>(life.start) / span * columns;
    const double x1 = static_cast<double>(life.end) / span * columns;
    uint64_t end;
    if (__builtin_add_overflow(life.address, life.size, &end)) end = UINT64_MAX;
    const double top = rows - folding.height_of(end);
    const double bottom = rows - folding.height_of(life.address);
    buffer.add(x0, x1, top, bottom, colour(life), !life.freed);
    ++blocks;
}

namespace {

// The folds: a band across the plot saying how much address space is left out; the
// regions' ends in hex on the left.
void draw_folds(cairo_t* cr, const TextPainter& text, const PlotFrame& frame,
                const AddressFolding& folding) {
    const double size = text.base_size();
    const auto& regions = folding.regions();
    const double label_room = frame.left - 4;
    for (size_t i = 0; i < regions.size(); ++i) {
        const auto& region = regions[i];
        const double bottom = frame.bottom - region.bottom;
        const double top = bottom - region.rows;
        set_colour(cr, kFrameBlue);
        if (region.rows >= size * 4) {
            text.draw(hex(region.low), frame.left - 3, bottom - 1, Align::right, label_room,
                      size * 0.85);
            text.draw(hex(region.high), frame.left - 3, top + size * 0.85, Align::right, label_room,
                      size * 0.85);
        } else if (region.rows >= size * 0.9) {
            text.draw(hex(region.low), frame.left - 3, (top + bottom) / 2 + size * 0.3,
                      Align::right, label_room, size * 0.85);
        }
        if (i + 1 == regions.size()) continue;
        const double fold_bottom = top, fold_top = top - kFoldRows;
        set_colour(cr, {0.93, 0.93, 0.96});
        cairo_rectangle(cr, frame.left, fold_top, frame.width(), kFoldRows);
        cairo_fill(cr);
        // A zigzag: the conventional mark of an axis broken.
        set_colour(cr, kGridGrey);
        cairo_set_line_width(cr, 1);
        const double mid = (fold_top + fold_bottom) / 2;
        for (double x = frame.left; x < frame.right; x += 6) {
            cairo_line_to(cr, x, mid - 2);
            cairo_line_to(cr, std::min(x + 3, frame.right), mid + 2);
        }
        cairo_stroke(cr);
        set_colour(cr, kFrameBlue);
        const uint64_t gap = regions[i + 1].low - region.high;
        text.draw("\u2248 " + bytes_text(gap), frame.left - 3, mid + size * 0.3, Align::right,
                  label_room, size * 0.8);
    }
}

// The legend right of the plot, the count of blocks and the note under it.
void draw_block_map_legend(cairo_t* cr, const TextPainter& text, const PlotFrame& frame,
                           const BlockMapSpec& spec) {
    const double size = text.base_size();
    const double legend_x = frame.right + 14;
    const double legend_room = spec.width - legend_x - 4;
    std::vector<LegendEntry> entries = spec.legend;
    entries.push_back({kLeakRed, "never freed (leak)"});
    double legend_height = frame.height() - size * 1.6;
    if (!spec.note.empty()) legend_height -= size * 1.6;
    draw_legend(cr, text, entries, legend_x, frame.top, legend_room, legend_height);
    set_colour(cr, kFrameBlue);
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, legend_x, frame.bottom - (spec.note.empty() ? 0 : size * 1.6));
    show_text(cr, fitted_text(cr, count_text(spec.blocks) + " blocks", legend_room));
    if (!spec.note.empty()) {
        set_colour(cr, kLeakRed);
        cairo_move_to(cr, legend_x, frame.bottom);
        show_text(cr, fitted_text(cr, spec.note, legend_room), spec.note);
    }
}

}  // namespace

void plot_block_map(cairo_t* cr, const BlockMapSpec& spec, const CoverageBuffer& buffer,
                    const AddressFolding& folding) {
    const TextPainter text = begin_picture(cr, spec.width, spec.height, spec.title);
    const double size = text.base_size();
    const PlotFrame frame = block_map_frame(spec.width, spec.height);

    if (folding.empty()) {
        draw_frame(cr, frame);
        draw_centred_message(cr, text, frame, spec.note.empty() ? "no blocks" : spec.note);
        return;
    }
    SurfacePtr image = blended_image(buffer);
    cairo_save(cr);
    cairo_set_source_surface(cr, image.get(), frame.left, frame.top);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, frame.left, frame.top, buffer.width(), buffer.height());
    cairo_fill(cr);
    cairo_restore(cr);

    // Leaks: a red mark beside every row where a block reaches the right edge unfreed.
    set_colour(cr, kLeakRed);
    for (unsigned y = 0; y < buffer.height(); ++y)
        if (buffer.pixel(buffer.width() - 1, y).leaked != 0)
            cairo_rectangle(cr, frame.right + 2, frame.top + y, 5, 1);
    cairo_fill(cr);

    draw_folds(cr, text, frame, folding);
    draw_frame(cr, frame);
    draw_event_axis(cr, text, frame, spec.axis, spec.height - std::round(size * 0.4));

    draw_block_map_legend(cr, text, frame, spec);
}

}  // namespace memusagestat
