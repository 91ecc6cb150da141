// SPDX-License-Identifier: MIT
#include "sites_request.h"

#include <sys/stat.h>

#include "exports/folded_stacks.h"
#include "reports/duration.h"
#include "reports/sites_options.h"
#include "reports/sites_outputs.h"

namespace memusage {

Status sites_request_error(const DriverOptions& options) {
    memusagestat::FoldedMetric metric;
    if (!options.folded_metric.empty()) {
        if (options.folded_path.empty()) return Failure{"--folded-metric goes with --folded"};
        if (!memusagestat::parse_folded_metric(options.folded_metric, metric))
            return Failure{"invalid metric '" + options.folded_metric +
                           "' for '--folded-metric'; use peak, leaked, kept, allocated or blocks"};
    }
    if (!options.long_lived.empty() && !memusagestat::parse_duration(options.long_lived))
        return Failure{memusagestat::duration_error(options.long_lived, "--long-lived")};
    return {};
}

Status requested_sites_outputs(const DriverOptions& options, const std::string& sites_path,
                               const std::string& events_path, const RunTimes& run,
                               SitesOutcome& outcome) {
    // An empty file means the collector never wrote it: the program was not the one -n
    // names, or it ended without running its exit handlers (_exit, a kill).
    struct stat status {};
    outcome.nothing_recorded = ::stat(sites_path.c_str(), &status) != 0 || status.st_size == 0;
    if (outcome.nothing_recorded)
        return Failure{std::string(wants_sites(options) ? "no allocation sites were recorded"
                                                        : "no stack peak was recorded") +
                       " (the program did not exit normally, or was "
                       "not the profiled one)"};
    memusagestat::SitesOutputs outputs;
    // What the options handed over ask for, through the mapping memusagestat --sites uses;
    // their values were checked before the run (sites_request_error).
    for (const auto& [option, value] : options.handed_over)
        memusagestat::ask_sites_output(option, value, outputs);
    // --sites[=N] is the driver's own: the rankings, and with --stack-peak[=N] the N of either.
    outputs.rankings = options.sites.has_value();
    outputs.top = options.stack_peak.value_or(options.sites.value_or(kDefaultSitesShown));
    outputs.stack_peak = outputs.stack_peak || options.sites.has_value();
    outputs.run_start_ns = run.start_ns;
    outputs.run_duration_ns = run.duration_ns;
    outputs.events_path = events_path;
    for (const std::string& word : options.command)
        outputs.command += (outputs.command.empty() ? "" : " ") + word;

    memusagestat::SitesResult result;
    Status made = memusagestat::make_sites_outputs(sites_path, outputs, result);
    outcome.report = std::move(result.text);
    outcome.warning = std::move(result.warning);
    outcome.leaks_found = result.leaks_found;
    if (!made.ok()) return Failure{"cannot report allocation sites: " + made.error()};
    return {};
}

}  // namespace memusage
