// SPDX-License-Identifier: MIT
// Feeds arbitrary bytes to the sites-file reader, then what it accepts through the reports
// and exports (with no modules, so no file is opened): nothing may crash, overflow or read
// out of bounds.
#include <cstddef>
#include <cstdint>
#include <span>

#include "exports/dhat_export.h"
#include "exports/folded_stacks.h"
#include "read/sites_reader.h"
#include "reports/leak_report.h"
#include "reports/sites_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    memusagestat::SitesProfile profile;
    auto bytes = std::as_bytes(std::span(data, size));
    if (!memusagestat::parse_sites(bytes, profile).ok()) return 0;
    profile.modules.clear();
    memusagestat::Symbolizer symbolizer(profile.modules);
    std::vector<memusagestat::ShownSite> sites = memusagestat::shown_sites(profile, symbolizer);
    (void)memusagestat::sites_report(
        profile, sites, symbolizer,
        memusagestat::SitesReportOptions{static_cast<unsigned>(1 + size % 5)});
    (void)memusagestat::leak_report(profile, sites, symbolizer);
    (void)memusagestat::folded_stacks(sites, memusagestat::FoldedMetric::leaked);
    (void)memusagestat::dhat_json(profile, sites, nullptr, "");
    return 0;
}
