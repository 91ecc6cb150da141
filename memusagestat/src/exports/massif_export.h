// SPDX-License-Identifier: MIT
// Valgrind massif's output format (massif.out), which ms_print and massif-visualizer read:
// snapshots of the run's start (empty), its heap at points spread evenly through the event
// recording, the heap's peak and its end. The peak, the end and every 10th point between
// (as massif details every 10th snapshot) are detailed: a tree of the bytes each stack
// held, allocation points first, callers beneath, every frame
// "0xADDRESS: function (file:line)" with inlined calls as frames of their own. A tree's
// total is its snapshot's heap: bytes no shown site accounts for are one entry of their
// own. Time is in bytes allocated and freed since the start (massif's time_unit: B), from
// the event recording: every event moves it, so a run of a few milliseconds has its
// snapshots apart (massif's milliseconds would put half of them at 0, and ms_print would
// draw the peak lasting to the end). Without a recording the snapshots' times are not known.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "memusage/status.h"
#include "sites/shown_sites.h"

namespace memusagestat {

struct MassifRun {
    std::string command;   // "cmd:"; the program's path when empty
    double peak_time = 0;  // bytes allocated and freed from the start to the heap's peak
    double end_time = 0;   // and to the end
    // The snapshots between, in time order.
    struct Point {
        double time = 0;  // bytes allocated and freed from the start
        uint64_t heap = 0;
        bool detailed = false;
        std::vector<std::pair<size_t, uint64_t>> held;  // (index in `sites`, bytes) if detailed
    };
    std::vector<Point> heap_over_time;
};

// Writes the file to `path` as it is made, a stretch at a time; failing, a message for the
// user.
memusage::Status write_massif_file(const std::string& path, const SitesProfile& profile,
                                   const std::vector<ShownSite>& sites, const MassifRun& run);

}  // namespace memusagestat
