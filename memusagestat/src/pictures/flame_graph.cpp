// SPDX-License-Identifier: MIT
#include "pictures/flame_graph.h"

#include <memusagestat/graph.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "draw/picture_output.h"
#include "draw/picture_style.h"

namespace memusagestat {

namespace {

uint64_t value_of(const AllocationSite& figures, FlameMetric metric) {
    switch (metric) {
        case FlameMetric::peak:
            return figures.bytes_at_peak;
        case FlameMetric::leaked:
            return figures.bytes_leaked();
        case FlameMetric::allocated:
            return figures.bytes_allocated;
    }
    return 0;
}

void sort_largest_first(FlameNode& node) {
    std::stable_sort(node.children.begin(), node.children.end(),
                     [](const FlameNode& a, const FlameNode& b) { return a.value > b.value; });
    for (FlameNode& child : node.children) sort_largest_first(child);
}

unsigned depth_of(const FlameNode& node) {
    unsigned deepest = 0;
    for (const FlameNode& child : node.children) deepest = std::max(deepest, depth_of(child));
    return deepest + 1;
}

// FlameGraph's warm palette for the program's frames, a pale sand for libraries' and the
// runtime's, each chosen by the function's name so that it keeps its colour everywhere.
Colour colour_of(const FlameNode& node) {
    const size_t hash = std::hash<std::string>{}(node.name);
    const double a = static_cast<double>(hash & 0xff) / 255;
    const double b = static_cast<double>((hash >> 8) & 0xff) / 255;
    if (!node.program) return {0.78 + 0.12 * a, 0.74 + 0.12 * a, 0.58 + 0.15 * b};
    return {0.85 + 0.15 * a, 0.3 + 0.5 * b, 0.05 + 0.12 * a};
}

// Labels are at most this part of their row's height, and none is smaller than this.
constexpr double kLabelOfRow = 0.72;
constexpr double kSmallestLabel = 5.5;

struct Layout {
    PlotFrame frame;
    double row = 0;         // pixels per level
    double label_size = 0;  // 0: no labels
    uint64_t total = 0;
};

void draw_node(cairo_t* cr, const Layout& layout, const FlameNode& node, double x, unsigned level) {
    const double width =
        layout.frame.width() * static_cast<double>(node.value) / static_cast<double>(layout.total);
    const double y = layout.frame.top + level * layout.row;
    // A gap of a pixel between rows and boxes, when the boxes are large enough to spare it.
    const double gap_y = layout.row >= 4 ? 1 : 0;
    const double gap_x = width >= 4 ? 1 : 0;
    const Colour colour = level == 0 ? Colour{0.82, 0.82, 0.82} : colour_of(node);
    set_colour(cr, colour);
    cairo_rectangle(cr, x, y, width - gap_x, layout.row - gap_y);
    cairo_fill(cr);
    if (layout.label_size > 0 && width > layout.label_size * 2) {
        cairo_set_font_size(cr, layout.label_size);
        // With its bytes when they fit too, else the name cut to fit.
        const std::string with_bytes = node.name + "  " + bytes_text(node.value);
        std::string label = fitted_text(cr, with_bytes, width - gap_x - 4);
        if (label != with_bytes) label = fitted_text(cr, node.name, width - gap_x - 4);
        if (!label.empty()) {
            set_colour(cr, {0.1, 0.1, 0.1});
            cairo_move_to(cr, x + 2, y + (layout.row - gap_y) / 2 + 0.36 * layout.label_size);
            show_text(cr, label, node.name);
        }
    }
    double child_x = x;
    for (const FlameNode& child : node.children) {
        draw_node(cr, layout, child, child_x, level + 1);
        child_x += layout.frame.width() * static_cast<double>(child.value) /
                   static_cast<double>(layout.total);
    }
}

}  // namespace

const char* metric_words(FlameMetric metric) {
    switch (metric) {
        case FlameMetric::peak:
            return "bytes held at the heap peak";
        case FlameMetric::leaked:
            return "bytes still allocated at exit";
        case FlameMetric::allocated:
            return "bytes allocated";
    }
    return "";
}

FlameNode build_flame_tree(const SiteNames& names, FlameMetric metric) {
    FlameNode root{"all", false, 0, {}};
    for (const SiteGroup& group : names.groups()) {
        const uint64_t value = value_of(group.figures, metric);
        if (value == 0) continue;
        root.value += value;
        FlameNode* node = &root;
        for (const FlameFrame& frame : group.stack) {
            auto found = std::find_if(node->children.begin(), node->children.end(),
                                      [&](const FlameNode& c) { return c.name == frame.name; });
            if (found == node->children.end()) {
                node->children.push_back({frame.name, frame.program, 0, {}});
                found = node->children.end() - 1;
            }
            found->value += value;
            node = &*found;
        }
    }
    sort_largest_first(root);
    return root;
}

void plot_flame_graph(cairo_t* cr, const FlamePlotSpec& spec, const FlameNode& root) {
    const TextPainter text = begin_picture(cr, spec.width, spec.height, spec.title);
    const double size = text.base_size();
    const double title_room = std::round(size * 2.2);
    const PlotFrame frame{10, spec.width - 10.0, title_room, spec.height - std::round(size * 1.8)};

    if (root.value == 0) {
        draw_centred_message(cr, text, frame, spec.empty_message);
        return;
    }
    Layout layout;
    layout.frame = frame;
    layout.total = root.value;
    const unsigned levels = depth_of(root);
    layout.row = std::min(std::round(size * 1.7), std::floor(frame.height() / levels));
    if (layout.row < 1) layout.row = frame.height() / levels;  // deeper than pixels: thin rows
    layout.label_size = std::min(size, layout.row * kLabelOfRow);
    if (layout.label_size < kSmallestLabel) layout.label_size = 0;
    cairo_save(cr);
    cairo_rectangle(cr, frame.left, frame.top, frame.width(), frame.height());
    cairo_clip(cr);
    draw_node(cr, layout, root, frame.left, 0);
    cairo_restore(cr);

    // Stacks deeper than the picture has rows for names (python's, a hundred levels with its
    // inlined calls): say how tall a picture would name them.
    std::string footer =
        "outermost call on top; each box a function, as wide as the bytes of the calls under it";
    if (layout.label_size == 0) {
        const double named_row = std::ceil(kSmallestLabel / kLabelOfRow);
        const double needed = levels * named_row + (spec.height - frame.height()) + 1;
        footer = needed <= kMaxPictureSide
                     ? "too deep to name every box at this height: -y " +
                           std::to_string(static_cast<unsigned>(needed)) + " names them"
                     : "each box a function, as wide as the bytes of the calls under it (too deep "
                       "to name)";
    }
    set_colour(cr, kFrameBlue);
    text.draw(footer, spec.width / 2.0, spec.height - std::round(size * 0.5), Align::centre,
              spec.width - 20.0);
}

}  // namespace memusagestat
