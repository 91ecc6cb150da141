// SPDX-License-Identifier: MIT
// What the live view shows, laid out as lines of text for a terminal of a given size:
// the figures, the heap's course of the last minute, the threads and, with sites on, the
// top sites held now. No terminal here
// (terminal_view.h puts the lines on the screen), so the layout is tested on its own.
#pragma once

#include <string>
#include <vector>

#include "live/figure_history.h"

namespace memusage::live {

struct ScreenState {
    std::string program;
    long pid = 0;
    double elapsed_seconds = 0;
    ThreadOrder order = ThreadOrder::held;
    bool paused = false;
    bool ended = false;   // the process has exited: the last figures stay
    bool unicode = true;  // block characters for the course, else ASCII
    bool sites = false;   // the process keeps its sites (--sites): their table is shown
    // The program this one replaced by exec (same pid), when the view followed it.
    std::string exec_from;
    // The process exec'd a program that publishes no figures (not under the collector):
    // `program` is its name, and there are no figures of it to show.
    bool not_profiled = false;
};

// A site holding blocks now, named as the sites report names it.
struct SiteLine {
    uint64_t held, blocks;
    std::string name;
};

// With sites on, the threads' table keeps this many rows at most; the sites take the rest.
inline constexpr int kThreadRowsWithSites = 3;

// The sparkline of `values` scaled to their maximum, one character a value.
std::string sparkline(const std::vector<uint64_t>& values, bool unicode);

// At most `height` lines, none wider than `width` columns (counting a block character
// as one). `sites`, most bytes first, are shown when state.sites.
std::vector<std::string> screen_lines(const FigureHistory& history, const ScreenState& state,
                                      const std::vector<ThreadLine>& threads, int width, int height,
                                      const std::vector<SiteLine>& sites = {});

}  // namespace memusage::live
