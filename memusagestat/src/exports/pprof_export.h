// SPDX-License-Identifier: MIT
// pprof's profile format (a gzipped profile.proto message), which `go tool pprof`, speedscope
// and the fleet profilers (Pyroscope, Parca, Grafana) read: one sample per shown site, its
// stack innermost first as locations (inlined calls as extra lines of one location), then
// the wrapper it allocated through as the leaf. Mappings are the run's modules with their
// build IDs; functions carry their file, so pprof needs no binary to show them.
//
// Sample types, in this order:
//   alloc_objects/count, alloc_space/bytes   allocated over the whole run
//   inuse_objects/count, inuse_space/bytes   held at the heap's peak (the default type)
//   leaked_objects/count, leaked_space/bytes still held at exit, the program's own
//   temporary_objects/count, temporary_space/bytes  freed before their thread's next
//                                            heap call (0 from sites files without them)
//   kept_objects/count, kept_space/bytes     still held at exit, kept by the C and C++
//                                            runtimes by design: no leak, listed apart
// Each figure is defined once, in sites/definitions.h.
// A heap profile's inuse_* mean "held at the moment of the profile"; a whole run's profile is
// taken at its worst moment, the peak, which is what a fleet profiler comparing runs wants.
// Leaks are another moment and another question: two types of their own in the same file
// (`-sample_index=leaked_space`), so one file answers both and travels alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sites/shown_sites.h"

namespace memusagestat {

struct PprofRun {
    uint64_t start_ns = 0;     // the run's start, nanoseconds since the epoch; 0: not known
    uint64_t duration_ns = 0;  // 0: not known
    std::string command;       // a comment in the profile ("-comments"); none when empty
};

// The sample types' names, in the order of each sample's values.
inline constexpr const char* kPprofSampleTypes[] = {
    "alloc_objects", "alloc_space",       "inuse_objects",   "inuse_space",  "leaked_objects",
    "leaked_space",  "temporary_objects", "temporary_space", "kept_objects", "kept_space"};

// The gzipped profile.
std::string pprof_profile(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                          const PprofRun& run);

}  // namespace memusagestat
