// SPDX-License-Identifier: MIT
// `memusage --sites`, `--leaks`, `--folded`, `--dhat`, `--pprof`, `--massif`, `--long-lived`: the
// allocation-site reports and exports of the run, made with the code memusagestat --sites uses.
#pragma once

#include <cstdint>
#include <string>

#include "memusage/status.h"
#include "options.h"

namespace memusage {

// Fails, with a message, for options that cannot work, before the program runs.
Status sites_request_error(const DriverOptions& options);

struct SitesOutcome {
    std::string report;        // printed after the summary
    std::string warning;       // printed as a message
    bool leaks_found = false;  // the program's leaks, as --leaks counts them
    // The run left no sites file (the program was not the profiled one, or did not exit
    // normally): nothing to make, as -p has nothing to draw, which is no failure of memusage.
    bool nothing_recorded = false;
};

// When the program ran, as the driver timed it (the pprof profile's time and duration).
struct RunTimes {
    uint64_t start_ns = 0;  // since the epoch
    uint64_t duration_ns = 0;
};

// The reports and exports of the sites file (and of the event recording at events_path, if
// not empty) into `outcome`; failing, a message for the user when some could not be made
// (`outcome` then holds those that could).
Status requested_sites_outputs(const DriverOptions& options, const std::string& sites_path,
                               const std::string& events_path, const RunTimes& run,
                               SitesOutcome& outcome);

}  // namespace memusage
