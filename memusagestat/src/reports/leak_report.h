// SPDX-License-Identifier: MIT
// The leak report (memusage --leaks, memusagestat --leaks): the blocks never freed, grouped
// by their folded stack, largest first. Whether the program could still reach a block at
// exit is not known here (valgrind's "still reachable" against "definitely lost" needs a
// scan of memory): the report is of blocks never freed. Blocks the C and C++ runtimes
// keep for themselves until exit (stdio buffers, dlopen's and pthread_create's records,
// libstdc++'s exception pool) are left out
// of the listing and the verdict, and their total said in one line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sites/shown_sites.h"

namespace memusagestat {

struct LeakReport {
    std::string text;
    uint64_t blocks = 0, bytes = 0;  // the program's leaks: 0 blocks is "no leaks"
};

// At most `top` stacks are listed (the largest), the headline counting them all.
LeakReport leak_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                       const Symbolizer& symbolizer, unsigned top = UINT32_MAX);

}  // namespace memusagestat
