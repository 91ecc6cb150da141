// SPDX-License-Identifier: MIT
// The pictures of where and when, drawn by the same library as the memusage graph:
// the flame graph of a sites file, the heap over time by site and the block map of an event
// recording. Each one failing says why in a message for the user (without the program name
// or a trailing newline); the format follows the output's extension (.svg, .pdf, anything
// else PNG).
#pragma once

#include <functional>
#include <string>

#include "memusage/status.h"

namespace memusagestat {

struct PictureOptions {
    std::string title;        // replaces the title line saying what and which run
    bool time_based = false;  // -t: x axis linear in time instead of in calls
    unsigned width = 800;     // -x, raised to graph.h's minimum, refused above its maximum
    unsigned height = 600;    // -y
    // Receives warnings (a damaged recording, a missing sites file, ...); empty prints them
    // on stderr.
    std::function<void(const std::string&)> on_warning;
};

enum class FlameMetric { peak, leaked, allocated };
enum class BlockColouring { site, thread, size };

// The flame graph (icicle) of the sites file at sites_path.
memusage::Status draw_flame_graph(const std::string& sites_path, const std::string& out_path,
                                  FlameMetric metric, const PictureOptions& options);

// The heap over time as stacked areas of its top sites; sites_path may be empty (the
// threads are stacked then).
memusage::Status draw_heap_by_site(const std::string& events_path, const std::string& sites_path,
                                   const std::string& out_path, const PictureOptions& options);

// The block map: every block a bar from its allocation to its free, address up.
memusage::Status draw_block_map(const std::string& events_path, const std::string& sites_path,
                                const std::string& out_path, BlockColouring colouring,
                                const PictureOptions& options);

}  // namespace memusagestat
