// Valgrind massif's output format (massif.out), which ms_print and massif-visualizer read:
// snapshots of the run's start (empty), its heap at points spread evenly through the event
// recording (totals only), the heap's peak and its end, the last two detailed: a tree of
// the bytes each stack held, allocation points first, callers beneath, every frame
// "0xADDRESS: function (file:line)" with inlined calls as frames of their own. The sites
// file holds the figures by stack of those two moments only: detailed trees at the points
// between would need the recording replayed site by site at each, which is not done. Time
// is in milliseconds (time_unit: ms), from the event recording: without one the
// snapshots' times are not known.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sites/shown_sites.h"

namespace memusagestat {

struct MassifRun {
    std::string command;  // "cmd:"; the program's path when empty
    double peak_ms = 0;   // since the start
    double end_ms = 0;
    // (milliseconds since the start, heap bytes), in time order: the snapshots between.
    std::vector<std::pair<double, uint64_t>> heap_over_time;
};

std::string massif_text(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                        const MassifRun& run);

}  // namespace memusagestat
