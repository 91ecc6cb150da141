// SPDX-License-Identifier: MIT
// The long-lived report (memusage --long-lived, memusagestat --long-lived): the sites of
// blocks that lived longer than a duration, freed late or never (still allocated at the end
// and allocated longer than that before it), with how many, how many bytes, and their mean
// and longest lifetimes, from the event recording's replay (site_replay.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sites/shown_sites.h"
#include "sites/site_lifetimes.h"

namespace memusagestat {

// threshold: seconds, as given to replay_sites.
std::string long_lived_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                              const RunLifetimes& lifetimes, double threshold,
                              const Symbolizer& symbolizer, unsigned top = UINT32_MAX);

}  // namespace memusagestat
