// Valgrind massif's output format (massif.out), which ms_print and massif-visualizer read:
// three snapshots, the run's start (empty), the heap's peak and its end, the last two
// detailed: a tree of the bytes each stack held, allocation points first, callers
// beneath, every frame "0xADDRESS: function (file:line)" with inlined calls as frames of
// their own. The sites file holds the figures of those two moments only; the heap at
// regular points between them would need the event recording replayed site by site, which
// this export does not do. Time is in milliseconds (time_unit: ms), from the event
// recording: without one the snapshots' times are not known.
#pragma once

#include <string>
#include <vector>

#include "sites/shown_sites.h"

namespace memusagestat {

struct MassifRun {
    std::string command;  // "cmd:"; the program's path when empty
    double peak_ms = 0;   // since the start
    double end_ms = 0;
};

std::string massif_text(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                        const MassifRun& run);

}  // namespace memusagestat
