// Feeds arbitrary bytes to the sites-file reader, then what it accepts through the report
// (with no modules, so no file is opened): nothing may crash, overflow or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <span>

#include "sites_reader.h"
#include "sites_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    memusagestat::SitesProfile profile;
    auto bytes = std::as_bytes(std::span(data, size));
    if (!memusagestat::parse_sites(bytes, profile).empty()) return 0;
    profile.modules.clear();
    memusagestat::Symbolizer symbolizer(profile.modules);
    (void)memusagestat::sites_report(
        profile, symbolizer, memusagestat::SitesReportOptions{static_cast<unsigned>(1 + size % 5)});
    return 0;
}
