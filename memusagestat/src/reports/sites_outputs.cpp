// SPDX-License-Identifier: MIT
#include "reports/sites_outputs.h"

#include <sys/stat.h>

#include "exports/dhat_export.h"
#include "exports/massif_export.h"
#include "exports/pprof_export.h"
#include "output/whole_file.h"
#include "reports/leak_report.h"
#include "reports/long_lived_report.h"
#include "reports/sites_report.h"
#include "reports/stack_peaks_report.h"
#include "sites/shown_sites.h"
#include "sites/site_replay.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

// When the run began and how long it took: as the driver saw it, else from the sites file's
// time of writing (the collector writes it at exit) less the recording's length when the
// recording was replayed for another output (0, not known, when not).
PprofRun pprof_run(const std::string& sites_path, const SitesOutputs& outputs,
                   const RunLifetimes& lifetimes) {
    PprofRun run;
    run.command = outputs.command;
    run.start_ns = outputs.run_start_ns;
    run.duration_ns = outputs.run_duration_ns;
    if (run.start_ns != 0) return run;
    if (run.duration_ns == 0 && lifetimes.duration > 0)
        run.duration_ns = static_cast<uint64_t>(lifetimes.duration * 1e9);
    struct stat written {};
    if (::stat(sites_path.c_str(), &written) == 0) {
        uint64_t end = static_cast<uint64_t>(written.st_mtim.tv_sec) * 1000000000u +
                       static_cast<uint64_t>(written.st_mtim.tv_nsec);
        run.start_ns = end > run.duration_ns ? end - run.duration_ns : end;
    }
    return run;
}

// The text reports asked for, one after another: the rankings, the stack peaks, the leaks.
void add_text_reports(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                      Symbolizer& symbolizer, const SitesOutputs& outputs, SitesResult& result) {
    // A file of stack peaks only (memusage --stack-peak) has no site to rank.
    if (outputs.rankings && profile.has_allocation_sites)
        result.text += sites_report(profile, sites, symbolizer,
                                    SitesReportOptions{outputs.top, outputs.leaks});
    if (outputs.stack_peak) {
        std::string peaks =
            stack_peak_report(profile, symbolizer, StackPeakReportOptions{outputs.top});
        if (!result.text.empty() && !peaks.empty()) result.text += "\n";
        result.text += peaks;
    }
    if (outputs.leaks) {
        LeakReport leaks = leak_report(profile, sites, symbolizer, outputs.top);
        if (!result.text.empty()) result.text += "\n";
        result.text += leaks.text;
        result.leaks_found = leaks.blocks > 0;
    }
}

// The recording, replayed once for the DHAT file's lifetimes, the massif file and the
// long-lived report. A recording that cannot be used is an error (`deferred`), said after
// the other outputs are made; an empty one (memusage's private recording, when the
// collector did not write it) only leaves the DHAT file without lifetimes.
struct Replayed {
    RunLifetimes lifetimes;
    bool replayed = false;
    std::string no_lifetimes = "no event recording";  // why there are none
    Status deferred;
};

void replay_recording(const SitesOutputs& outputs, const SitesProfile& profile,
                      const std::vector<ShownSite>& sites, Replayed& replay) {
    struct stat events {};
    const bool lifetimes_wanted = !outputs.dhat_path.empty() || !outputs.massif_path.empty();
    if (outputs.events_path.empty() || (!outputs.long_lived && !lifetimes_wanted)) return;
    if (::stat(outputs.events_path.c_str(), &events) == 0 && events.st_size == 0) {
        replay.no_lifetimes = "the event recording is empty: the run did not write it";
        return;
    }
    replay.deferred = replay_sites(outputs.events_path, profile, sites, outputs.long_lived,
                                   lifetimes_wanted, replay.lifetimes);
    replay.replayed = replay.deferred.ok();
    replay.no_lifetimes = replay.deferred.error();
}

void add_long_lived_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                           Symbolizer& symbolizer, const SitesOutputs& outputs, Replayed& replay,
                           SitesResult& result) {
    if (!outputs.long_lived) return;
    if (!replay.replayed && replay.deferred.ok()) {
        replay.deferred =
            Failure{outputs.events_path.empty()
                        ? "the long-lived report needs the run's event recording (--events)"
                        : "no long-lived report: " + replay.no_lifetimes};
    } else if (replay.replayed) {
        if (!result.text.empty()) result.text += "\n";
        result.text += long_lived_report(profile, sites, replay.lifetimes, *outputs.long_lived,
                                         symbolizer, outputs.top);
    }
}

// The massif file's snapshot times are the recording's bytes in and out (peak and end).
Status write_massif(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                    const SitesOutputs& outputs, Replayed& replay) {
    if (outputs.massif_path.empty()) return {};
    if (!replay.replayed) {
        if (replay.deferred.ok())
            replay.deferred =
                Failure{outputs.events_path.empty()
                            ? "the massif file needs the run's event recording (--events) for "
                              "its snapshots' times"
                            : "no massif file: " + replay.no_lifetimes};
        return {};
    }
    RunLifetimes& lifetimes = replay.lifetimes;
    MassifRun run{outputs.command,
                  static_cast<double>(lifetimes.peak_bytes_churned),
                  static_cast<double>(lifetimes.bytes_churned),
                  {}};
    for (RunLifetimes::HeapSample& sample : lifetimes.heap_samples)
        run.heap_over_time.push_back({static_cast<double>(sample.bytes_churned), sample.heap,
                                      sample.detailed, std::move(sample.held)});
    return write_massif_file(outputs.massif_path, profile, sites, run);
}

Status write_dhat(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                  const SitesOutputs& outputs, Replayed& replay, SitesResult& result) {
    if (outputs.dhat_path.empty()) return {};
    // Sampled sites: the recording names the site of the sampled blocks only, without
    // their weights, so its lifetimes and peaks would be the sample's beside the sites
    // file's estimates of the whole run. The file keeps to the estimates.
    // The run's end (DHAT's te) all the same: the driver's clock, else the recording's.
    double end_seconds = outputs.run_duration_ns != 0
                             ? static_cast<double>(outputs.run_duration_ns) * 1e-9
                             : (replay.replayed ? replay.lifetimes.duration : 0);
    if (profile.sample_interval != 0 && (replay.replayed || replay.deferred.ok())) {
        replay.replayed = false;
        replay.no_lifetimes = kSampledNoLifetimes;
    }
    Status written = write_whole_file(
        outputs.dhat_path, dhat_json(profile, sites, replay.replayed ? &replay.lifetimes : nullptr,
                                     outputs.command, replay.no_lifetimes, end_seconds));
    if (!written.ok()) return written;
    if (!replay.replayed && replay.deferred.ok())
        result.warning = "the DHAT file has no lifetimes (" + replay.no_lifetimes +
                         "): dh_view shows totals only";
    else if (!replay.lifetimes.problem.empty())
        result.warning = "the DHAT file's lifetimes: " + replay.lifetimes.problem;
    return {};
}

}  // namespace

Status make_sites_outputs(const std::string& sites_path, const SitesOutputs& outputs,
                          SitesResult& result) {
    result = SitesResult{};
    SitesProfile profile;
    if (Status loaded = read_sites_file(sites_path, profile); !loaded.ok()) return loaded;
    Symbolizer symbolizer(profile.modules);
    std::vector<ShownSite> sites = shown_sites(profile, symbolizer);
    add_text_reports(profile, sites, symbolizer, outputs, result);
    // Every site is named: the replay's memory need not hold the debug information too.
    symbolizer.close_files();
    Replayed replay;
    replay_recording(outputs, profile, sites, replay);
    add_long_lived_report(profile, sites, symbolizer, outputs, replay, result);
    if (Status written = write_massif(profile, sites, outputs, replay); !written.ok())
        return written;
    if (!outputs.folded_path.empty()) {
        Status written =
            write_whole_file(outputs.folded_path, folded_stacks(sites, outputs.folded_metric));
        if (!written.ok()) return written;
    }
    if (Status written = write_dhat(profile, sites, outputs, replay, result); !written.ok())
        return written;
    if (!outputs.pprof_path.empty()) {
        Status written = write_whole_file(
            outputs.pprof_path,
            pprof_profile(profile, sites, pprof_run(sites_path, outputs, replay.lifetimes)));
        if (!written.ok()) return written;
    }
    return replay.deferred;
}

}  // namespace memusagestat
