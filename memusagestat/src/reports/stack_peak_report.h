// The stack peak report (memusage --stack-peak and --sites, memusagestat --sites): which
// functions held each thread's stack at its deepest captured point, outermost first, with
// the bytes each frame held; a recursion folded to one line; then the functions ranked by
// the bytes they held. The main thread's, then the other threads' with the largest peaks.
#pragma once

#include <string>

#include "read/sites_reader.h"
#include "sites/symbolizer.h"

namespace memusagestat {

struct StackPeakReportOptions {
    unsigned top = 10;  // threads besides the main thread, the deepest first
};

// Empty when the profile has no stack peak.
std::string stack_peak_report(const SitesProfile& profile, Symbolizer& symbolizer,
                              const StackPeakReportOptions& options);

// A stack peak's frames as the report shows them, outermost first: one line each, or one
// for a run of frames of the same function (a recursion).
struct StackPeakLine {
    std::string function;  // "?" when unknown
    std::string location;  // file:line of the innermost frame of the run; may be empty
    unsigned frames = 1;   // how many frames the line folds
    uint64_t bytes = 0;    // held by all of them
    uint64_t least_bytes = 0, most_bytes = 0;  // held by one of them
    // On the measured stack: false for frames of the code a handler on its alternate
    // stack interrupted, and for the C library's frames above where main's stack starts.
    bool measured = true;
};
std::vector<StackPeakLine> stack_peak_lines(const StackPeak& peak, Symbolizer& symbolizer);

}  // namespace memusagestat
