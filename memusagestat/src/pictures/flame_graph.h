// SPDX-License-Identifier: MIT
// The flame graph of a sites file, drawn as an icicle (the outermost call on top): each box a
// function, as wide as the bytes allocated through it (at the heap peak, still allocated at
// exit, or in all), its callees below it.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <string>
#include <vector>

#include "memusagestat/pictures.h"
#include "sites/site_names.h"

namespace memusagestat {

struct FlameNode {
    std::string name;
    bool program = true;  // the program's own code: warm colours; libraries': pale
    uint64_t value = 0;
    std::vector<FlameNode> children;  // largest first
};

// The tree of every site's stack (outermost first) weighted by `metric`; the root is "all".
FlameNode build_flame_tree(const SiteNames& names, FlameMetric metric);

struct FlamePlotSpec {
    unsigned width = 800, height = 600;
    std::string title;
    std::string empty_message;  // said instead of a graph when the root's value is 0
};

void plot_flame_graph(cairo_t* cr, const FlamePlotSpec& spec, const FlameNode& root);

// The total in words, for titles: "bytes held at the heap peak", ...
const char* metric_words(FlameMetric metric);

}  // namespace memusagestat
