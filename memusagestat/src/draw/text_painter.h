// SPDX-License-Identifier: MIT
// Lettering that fits: the insets are fixed and the picture can be as small as 100x80,
// so every label is shrunk to the room it has, or left out when it would be illegible.
#pragma once

#include <cairo.h>

#include <string>

namespace memusagestat {

enum class Align { left, centre, right };

class TextPainter {
  public:
    // Draws with the context's current face and source; `base_size` in pixels.
    TextPainter(cairo_t* cr, double base_size) : cr_(cr), base_size_(base_size) {}

    // Whether `text` fits `room` pixels at `size` or at a smaller but legible size.
    bool fits(const std::string& text, double room, double size) const;

    // Draws `text` with its baseline at y, horizontally placed at x per `align`, at
    // `size` (0: the base size) or smaller to fit `room` pixels. Returns false, drawing
    // nothing, when even the smallest legible size does not fit, so callers can try a
    // shorter text.
    bool draw(const std::string& text, double x, double y, Align align, double room,
              double size = 0) const;

    // Baseline offset that centres digits of the base size on a line.
    double centring_offset() const { return 0.36 * base_size_; }
    double base_size() const { return base_size_; }

  private:
    // The size to draw at, or 0 when the text cannot be made to fit legibly.
    double size_for(const std::string& text, double room, double size) const;

    static constexpr double kSmallestLegible = 5.5;
    cairo_t* cr_;
    double base_size_;
};

}  // namespace memusagestat
