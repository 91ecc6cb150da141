// SPDX-License-Identifier: MIT
// The stack peak report (memusage --stack-peak and --sites, memusagestat --sites): which
// functions held each thread's stack at its deepest captured point, outermost first, with
// the bytes each frame held; a recursion folded to one line; then the functions ranked by
// the bytes they held. The main thread's, then the other threads' with the largest peaks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "read/sites_reader.h"
#include "sites/symbolizer.h"

namespace memusagestat {

struct StackPeakReportOptions {
    unsigned top = 10;  // threads besides the main thread, the deepest first
};

// Empty when the profile has no stack peak.
std::string stack_peak_report(const SitesProfile& profile, Symbolizer& symbolizer,
                              const StackPeakReportOptions& options);

// The stack peaks in the order the report shows them: the main thread's, then the deepest.
std::vector<const StackPeak*> ordered_stack_peaks(const SitesProfile& profile);

// One frame of a stack peak, named and sized as the report shows it.
struct StackPeakFrame {
    // The functions of its instruction, innermost first: the inlined ones, then the one
    // holding the frame (Symbolizer::frames_of); may be empty.
    const std::vector<SourceFrame>* source = nullptr;
    std::string function;  // the holder, then " > " and each function inlined into it; "?"
    std::string location;  // file:line of the innermost inlined function; may be empty
    uint64_t bytes = 0;    // of the measured stack (StackPeak::frame_bytes)
    // On the measured stack: false for frames of the code a handler on its alternate
    // stack interrupted, and for the C library's frames above where main's stack starts.
    bool measured = true;
    // The kernel's signal frame (the C library's nameless return trampoline), outermost on
    // an alternate signal stack: its function is "(signal frame)".
    bool signal_frame = false;
};
// A stack peak's frames, outermost first, without the outermost kept frame of a cut stack
// (which holds an unknown part of StackPeak::outer_bytes()).
std::vector<StackPeakFrame> stack_peak_frames(const StackPeak& peak, Symbolizer& symbolizer);

// A stack peak's frames as the report shows them, outermost first: one line each, or one
// for a run of frames of the same function (a recursion).
struct StackPeakLine {
    std::string function;  // "?" when unknown
    std::string location;  // file:line of the innermost frame of the run; may be empty
    unsigned frames = 1;   // how many frames the line folds (cycles, for a cycle)
    uint64_t bytes = 0;    // held by all of them
    uint64_t least_bytes = 0, most_bytes = 0;  // held by one of them
    // On the measured stack: false for frames of the code a handler on its alternate
    // stack interrupted, and for the C library's frames above where main's stack starts.
    bool measured = true;
    // A recursion through several functions folded: how many functions the cycle has
    // (`function` names them, " > " between), 0 for a line of one function.
    unsigned cycle = 0;
};
std::vector<StackPeakLine> stack_peak_lines(const StackPeak& peak, Symbolizer& symbolizer);

}  // namespace memusagestat
