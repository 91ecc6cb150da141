// SPDX-License-Identifier: MIT
// The allocation-site report: the top sites by bytes held at the heap peak, by bytes still
// allocated at exit, by bytes allocated, and by temporary blocks when there are any, each with its
// stack symbolised, the program's own innermost frame first. Wrapper frames (operator new, the
// standard library, the C runtime, g_malloc) are folded into the site that called them, and sites
// that are the same once folded are counted as one.
#pragma once

#include <string>

#include "read/sites_reader.h"
#include "sites/shown_sites.h"
#include "sites/symbolizer.h"

namespace memusagestat {

struct SitesReportOptions {
    unsigned top = 10;  // sites per ranking
    // The leak report follows (--leaks): the ranking of leaks is left to it, said once.
    bool leaks_apart = false;
};

// The report's text. `symbolizer` must have been made from profile.modules.
std::string sites_report(const SitesProfile& profile, Symbolizer& symbolizer,
                         const SitesReportOptions& options);
// The same, from the profile's sites as shown_sites made them.
std::string sites_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                         Symbolizer& symbolizer, const SitesReportOptions& options);

}  // namespace memusagestat
