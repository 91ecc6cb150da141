// SPDX-License-Identifier: MIT
// The block map's accumulation buffer: every block adds its colour to the pixels it covers,
// weighted by how much of each pixel it covers, and counts in every pixel it touches; the
// picture is the blend. A rectangle costs four updates whatever its size (a summed-area
// difference table, summed once at the end), so millions of blocks draw in one pass, and
// a block thinner than a pixel still darkens its pixel.
//
// Integers, not floats: the sums are exact whatever the order and number of blocks. Blocks
// alive at the same moment never share an address, so a pixel's weight never exceeds one
// whole pixel (kWhole), and its colour sums stay far inside 32 bits; the table's
// intermediate sums may wrap, the final ones are exact (modular arithmetic).
#pragma once

#include <cstdint>
#include <vector>

namespace memusagestat {

struct Rgb8 {
    uint8_t r, g, b;
};

class CoverageBuffer {
  public:
    CoverageBuffer(unsigned width, unsigned height);

    // A block over [x0, x1) x [y0, y1) in pixels (y down), clipped to the buffer.
    void add(double x0, double x1, double y0, double y1, Rgb8 colour, bool leaked);

    // Sums the table; after this, pixel() answers.
    void finish();

    struct Pixel {
        uint32_t weight;   // coverage, kWhole = the whole pixel
        uint32_t r, g, b;  // colour sums: weight + 1 for each block touching the pixel
        uint32_t touched;  // blocks touching the pixel
        uint32_t leaked;   // of them, blocks never freed
    };
    const Pixel& pixel(unsigned x, unsigned y) const { return cells_[y * stride_ + x]; }
    unsigned width() const { return width_; }
    unsigned height() const { return height_; }

    static constexpr uint32_t kWhole = 256;

  private:
    void add_rect(unsigned x0, unsigned x1, unsigned y0, unsigned y1, const Pixel& value);

    unsigned width_, height_, stride_;
    std::vector<Pixel> cells_;  // (height + 1) x (width + 1)
};

}  // namespace memusagestat
