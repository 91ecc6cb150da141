// SPDX-License-Identifier: MIT
// The event recording replayed against a profile's shown sites: each block's life from its
// allocation to its free (a realloc keeps its birth), each site's most bytes at once, its
// bytes and blocks at the heap's peak, and the blocks that lived longer than a threshold.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memusage/status.h"
#include "sites/shown_sites.h"
#include "sites/site_lifetimes.h"

namespace memusagestat {

// Replays the recording at `events_path` (memusage --events, MEMUSAGE_EVENTS) of the run
// that wrote `profile`. long_lived: the threshold in seconds, if that report is wanted;
// at_peak: also find each site's blocks at the peak (a second pass), and the bytes each site
// held at every 10th heap sample (RunLifetimes::heap_samples, unless the sites were sampled).
// Failing, a message (succeeding, lifetimes.problem may still say the recording was cut
// short).
memusage::Status replay_sites(const std::string& events_path, const SitesProfile& profile,
                              const std::vector<ShownSite>& sites, std::optional<double> long_lived,
                              bool at_peak, RunLifetimes& lifetimes);

}  // namespace memusagestat
