#include "sites_request.h"

#include <sys/stat.h>

#include "sites_report.h"

namespace memusage {

std::string requested_sites_report(const DriverOptions& options, const std::string& sites_path,
                                   std::string& report) {
    // An empty file means the collector never wrote it: the program was not the one -n
    // names, or it ended without running its exit handlers (_exit, a kill).
    struct stat status {};
    if (::stat(sites_path.c_str(), &status) != 0 || status.st_size == 0)
        return "no allocation sites were recorded (the program did not exit normally, or was "
               "not the profiled one)";
    memusagestat::SitesReportOptions report_options;
    report_options.top = options.sites.value_or(kDefaultSitesShown);
    std::string error = memusagestat::report_sites_file(sites_path, report_options, report);
    if (!error.empty()) return "cannot report allocation sites: " + error;
    return {};
}

}  // namespace memusage
