// SPDX-License-Identifier: MIT
// Folded stacks ("main;parse;xmalloc 4096" lines, outermost frame first) for FlameGraph's
// flamegraph.pl, inferno and speedscope. Frames are short function names, which is what
// those tools show and merge best: a file:line in a frame would split one function into a
// box per line. Inlined calls are frames of their own; the wrapper a site allocated
// through (operator new, std::vector::push_back, strdup) is the leaf frame.
#pragma once

#include <string>
#include <vector>

#include "sites/shown_sites.h"

namespace memusagestat {

enum class FoldedMetric {
    peak,       // bytes held at the heap peak (the default)
    leaked,     // bytes still allocated at exit, the program's own (sites/definitions.h)
    kept,       // bytes still allocated at exit that the runtimes keep: no leak
    allocated,  // bytes allocated
    blocks,     // blocks allocated
};

// "peak", "leaked", "kept", "allocated", "blocks"; false for anything else.
bool parse_folded_metric(const std::string& text, FoldedMetric& metric);

// One line per distinct folded stack with a value above zero, sorted by stack.
std::string folded_stacks(const std::vector<ShownSite>& sites, FoldedMetric metric);

}  // namespace memusagestat
