// SPDX-License-Identifier: MIT
#include "pictures/coverage_buffer.h"

#include <algorithm>
#include <cmath>

namespace memusagestat {

namespace {

struct Segment {
    unsigned first, last;  // pixels
    double cover;          // of each pixel in it
};

// The pixels [from, to) touches along one axis, as up to three runs: a partly covered pixel,
// the wholly covered ones, a partly covered pixel. Always at least one pixel.
unsigned segments(double from, double to, unsigned limit, Segment out[3]) {
    from = std::clamp(from, 0.0, static_cast<double>(limit));
    to = std::clamp(to, from, static_cast<double>(limit));
    unsigned first = std::min(static_cast<unsigned>(from), limit - 1);
    unsigned last = to > from ? static_cast<unsigned>(std::ceil(to)) - 1 : first;
    last = std::clamp(last, first, limit - 1);
    if (first == last) {
        out[0] = {first, first, to - from};
        return 1;
    }
    unsigned n = 0;
    out[n++] = {first, first, first + 1 - from};
    if (last > first + 1) out[n++] = {first + 1, last - 1, 1};
    out[n++] = {last, last, to - last};
    return n;
}

}  // namespace

CoverageBuffer::CoverageBuffer(unsigned width, unsigned height)
    : width_(std::max(width, 1u)),
      height_(std::max(height, 1u)),
      stride_(width_ + 1),
      cells_(static_cast<size_t>(height_ + 1) * stride_, Pixel{}) {}

void CoverageBuffer::add_rect(unsigned x0, unsigned x1, unsigned y0, unsigned y1, const Pixel& v) {
    auto apply = [&](size_t at, bool plus) {
        Pixel& cell = cells_[at];
        if (plus) {
            cell.weight += v.weight, cell.r += v.r, cell.g += v.g, cell.b += v.b;
            cell.touched += v.touched, cell.leaked += v.leaked;
        } else {
            cell.weight -= v.weight, cell.r -= v.r, cell.g -= v.g, cell.b -= v.b;
            cell.touched -= v.touched, cell.leaked -= v.leaked;
        }
    };
    const size_t top = static_cast<size_t>(y0) * stride_,
                 below = static_cast<size_t>(y1 + 1) * stride_;
    apply(top + x0, true);
    apply(top + x1 + 1, false);
    apply(below + x0, false);
    apply(below + x1 + 1, true);
}

void CoverageBuffer::add(double x0, double x1, double y0, double y1, Rgb8 colour, bool leaked) {
    Segment xs[3], ys[3];
    const unsigned nx = segments(x0, x1, width_, xs);
    const unsigned ny = segments(y0, y1, height_, ys);
    for (unsigned i = 0; i < nx; ++i)
        for (unsigned j = 0; j < ny; ++j) {
            const auto weight = static_cast<uint32_t>(xs[i].cover * ys[j].cover * kWhole);
            if (weight == 0) continue;
            add_rect(xs[i].first, xs[i].last, ys[j].first, ys[j].last,
                     {weight, weight * colour.r, weight * colour.g, weight * colour.b, 0, 0});
        }
    add_rect(xs[0].first, xs[nx - 1].last, ys[0].first, ys[ny - 1].last,
             {0, colour.r, colour.g, colour.b, 1, leaked ? 1u : 0u});
}

void CoverageBuffer::finish() {
    auto add_into = [](Pixel& to, const Pixel& from) {
        to.weight += from.weight, to.r += from.r, to.g += from.g, to.b += from.b;
        to.touched += from.touched, to.leaked += from.leaked;
    };
    for (unsigned y = 0; y <= height_; ++y)
        for (unsigned x = 1; x <= width_; ++x)
            add_into(cells_[y * stride_ + x], cells_[y * stride_ + x - 1]);
    for (unsigned y = 1; y <= height_; ++y)
        for (unsigned x = 0; x <= width_; ++x)
            add_into(cells_[y * stride_ + x], cells_[(y - 1) * stride_ + x]);
}

}  // namespace memusagestat
