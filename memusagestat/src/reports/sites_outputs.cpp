#include "reports/sites_outputs.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "exports/dhat_export.h"
#include "reports/leak_report.h"
#include "reports/long_lived_report.h"
#include "reports/sites_report.h"
#include "reports/stack_peak_report.h"
#include "sites/shown_sites.h"
#include "sites/site_replay.h"

namespace memusagestat {
namespace {

std::string write_file(const std::string& path, const std::string& text) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) return "cannot write " + path + ": " + std::strerror(errno);
    bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    int error = errno;
    if (std::fclose(file) != 0 && written) {
        written = false;
        error = errno;
    }
    if (!written) return "cannot write " + path + ": " + std::strerror(error);
    return {};
}

}  // namespace

std::string make_sites_outputs(const std::string& sites_path, const SitesOutputs& outputs,
                               SitesResult& result) {
    result = SitesResult{};
    SitesProfile profile;
    if (std::string error = read_sites_file(sites_path, profile); !error.empty()) return error;
    Symbolizer symbolizer(profile.modules);
    std::vector<ShownSite> sites = shown_sites(profile, symbolizer);

    // A file of stack peaks only (memusage --stack-peak) has no site to rank.
    if (outputs.rankings && profile.has_allocation_sites)
        result.text += sites_report(profile, sites, symbolizer, SitesReportOptions{outputs.top});
    if (outputs.stack_peak) {
        std::string peaks =
            stack_peak_report(profile, symbolizer, StackPeakReportOptions{outputs.top});
        if (!result.text.empty() && !peaks.empty()) result.text += "\n";
        result.text += peaks;
    }
    if (outputs.leaks) {
        LeakReport leaks = leak_report(profile, sites, symbolizer);
        if (!result.text.empty()) result.text += "\n";
        result.text += leaks.text;
        result.leaks_found = leaks.blocks > 0;
    }
    // The recording, replayed once for the DHAT file's lifetimes and the long-lived report.
    // A recording that cannot be used is an error, said after the other outputs are made;
    // an empty one (memusage's private recording, when the collector did not write it)
    // only leaves the DHAT file without lifetimes.
    RunLifetimes lifetimes;
    std::string no_lifetimes = "no event recording", deferred_error;
    bool replayed = false;
    struct stat events {};
    if (!outputs.events_path.empty() && (outputs.long_lived || !outputs.dhat_path.empty())) {
        if (::stat(outputs.events_path.c_str(), &events) == 0 && events.st_size == 0) {
            no_lifetimes = "the event recording is empty: the run did not write it";
        } else {
            no_lifetimes = replay_sites(outputs.events_path, profile, sites, outputs.long_lived,
                                        !outputs.dhat_path.empty(), lifetimes);
            replayed = no_lifetimes.empty();
            deferred_error = no_lifetimes;
        }
    }
    if (outputs.long_lived && !replayed && deferred_error.empty()) {
        deferred_error = outputs.events_path.empty()
                             ? "the long-lived report needs the run's event recording (--events)"
                             : "no long-lived report: " + no_lifetimes;
    } else if (outputs.long_lived && replayed) {
        if (!result.text.empty()) result.text += "\n";
        result.text +=
            long_lived_report(profile, sites, lifetimes, *outputs.long_lived, symbolizer);
    }
    if (!outputs.folded_path.empty()) {
        std::string error =
            write_file(outputs.folded_path, folded_stacks(sites, outputs.folded_metric));
        if (!error.empty()) return error;
    }
    if (!outputs.dhat_path.empty()) {
        // Sampled sites: the recording names the site of the sampled blocks only, without
        // their weights, so its lifetimes and peaks would be the sample's beside the sites
        // file's estimates of the whole run. The file keeps to the estimates.
        if (profile.sample_interval != 0 && (replayed || deferred_error.empty())) {
            replayed = false;
            no_lifetimes = kSampledNoLifetimes;
        }
        std::string error =
            write_file(outputs.dhat_path, dhat_json(profile, sites, replayed ? &lifetimes : nullptr,
                                                    outputs.command, no_lifetimes));
        if (!error.empty()) return error;
        if (!replayed && deferred_error.empty())
            result.warning =
                "the DHAT file has no lifetimes (" + no_lifetimes + "): dh_view shows totals only";
        else if (!lifetimes.problem.empty())
            result.warning = "the DHAT file's lifetimes: " + lifetimes.problem;
    }
    return deferred_error;
}

}  // namespace memusagestat
