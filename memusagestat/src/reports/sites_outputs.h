// SPDX-License-Identifier: MIT
// Everything made from one sites file, as memusagestat --sites and memusage ask for it: the
// rankings, the leak report, folded stacks, DHAT JSON, pprof, massif, and with the run's event
// recording the lifetimes in DHAT JSON and the long-lived report. The file is read and its stacks
// symbolised once for all of them.
#pragma once

#include <optional>
#include <string>

#include "exports/folded_stacks.h"
#include "memusage/status.h"

namespace memusagestat {

struct SitesOutputs {
    bool rankings = false;    // the three rankings (sites_report.h)
    unsigned top = 10;        // sites per ranking, and threads besides the main one
    bool stack_peak = false;  // the stack peak report (stack_peaks_report.h), if the file has one
    bool leaks = false;       // the leak report (leak_report.h)
    std::string folded_path;  // write folded stacks here, if not empty
    FoldedMetric folded_metric = FoldedMetric::peak;
    std::string dhat_path;    // write DHAT JSON here, if not empty
    std::string pprof_path;   // write a pprof profile here, if not empty
    std::string massif_path;  // write massif's format here (needs events_path)
    // The run's start (ns since the epoch) and length, for the pprof profile; 0: not known
    // (then the sites file's time of writing, the run's end, and the recording's length).
    uint64_t run_start_ns = 0, run_duration_ns = 0;
    std::string command;               // DHAT's "cmd"; the program's path when empty
    std::string events_path;           // the run's event recording, if any (lifetimes)
    std::optional<double> long_lived;  // the long-lived report's threshold, in seconds
};

struct SitesResult {
    std::string text;          // the reports asked for, one after another
    bool leaks_found = false;  // the leak report found leaks of the program's
    std::string warning;       // something the user should know that is not an error
};

// Failing, a message for the user. An event recording that cannot be used (or is missing
// for the long-lived report) is such a failure, after the other outputs are made.
memusage::Status make_sites_outputs(const std::string& sites_path, const SitesOutputs& outputs,
                                    SitesResult& result);

}  // namespace memusagestat
