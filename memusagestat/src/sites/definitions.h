// SPDX-License-Identifier: MIT
// Every quantity the reports and exports show, defined once: each text report, --diff, the
// HTML report, pprof, DHAT and folded stacks take it from here, never from a rule of their
// own. README's "Definitions" states the same rules for the reader.
//
// - Allocated: every block a call made (malloc, calloc, the aligned family, realloc(NULL))
//   and every byte asked for, a realloc's growth included (the collector's SiteRecord).
// - Held at the peak: the bytes (blocks) a site held at the moment the heap was largest.
// - Leaked: a block still allocated at exit, less the blocks the C and C++ runtimes keep
//   (kept_by_runtime, below), which every output lists apart and no leak figure counts.
// - Temporary: a block freed before its thread's next heap call on another block (an
//   allocation, a free, a resize); its own resizes keep it temporary. Decided where it
//   happens, by the collector (heap/counting.h) and, for recordings without the figure,
//   by TemporaryRule below.
// - Long-lived: a block that lived longer than the threshold: freed later than that, or
//   never freed and allocated longer than that before the end.
// - Where a block grew: the stack of the realloc that last made it larger, when that is not
//   the stack that allocated it (add_grown_at). The block stays at its site in every figure;
//   the reports name the growing realloc beside it ("grown at").
// - A site's identity across runs (site_identity): its call path of functions, each with
//   its module's name and the call's line counted from its function's first line.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sites/frame_folding.h"
#include "sites/shown_sites.h"
#include "sites/symbolizer.h"

namespace memusagestat {

// What the runtimes keep: blocks the C and C++ runtimes allocate for themselves and keep
// until exit by design (valgrind calls them "still reachable"). Decided for each block from
// its own stack, never for a shown site, which may fold together stacks of both kinds
// (getline's line buffers and the stream's own buffer are both "main via getline").
// `frames`: a block's whole symbolised stack, innermost first; `shown`: its shown part
// (shown_frames). True when the block is the runtime's:
// - a stack with no frame of the program's (libstdc++'s exception pool, made before main);
// - a stream's buffer, allocated by stdio on the stream's first use;
// - libgcc_s, which glibc loads for pthread_exit's and pthread_cancel's unwinding;
// - what dlopen and pthread_create keep (a library's link map, a thread's TLS).
// The first three are matched among the runtime's own frames, those before the program's
// innermost one, so a block the program allocated itself is never taken for them.
bool kept_by_runtime(const std::vector<SourceFrame>& frames, const ShownFrames& shown);

// What the runtimes keep of one raw site's blocks, as figures to subtract from the site's:
// all of them when kept_by_runtime says so, but of a stack that allocates a stream's
// buffer, with a sites file that names the standard streams' buffers, only those: a
// buffer of a stream the program opened (fopen) and never closed is the program's leak.
// `whole`: set when the site's blocks are all the runtime's.
AllocationSite kept_of_site(const AllocationSite& site, const SitesProfile& profile,
                            const std::vector<SourceFrame>& frames, const ShownFrames& shown,
                            bool& whole);

// Bytes and blocks.
struct Amount {
    uint64_t bytes = 0, blocks = 0;
};

// A site's leaks: its blocks still allocated at exit that are the program's own.
Amount leaked(const ShownSite& site);
// Its blocks still allocated at exit that the runtimes keep: listed apart, never a leak.
Amount kept_at_exit(const ShownSite& site);
// What it held at the heap's peak, all of it (the runtime's blocks take room too).
Amount at_peak(const ShownSite& site);
// What it allocated over the run.
Amount allocated(const ShownSite& site);
// Its temporary blocks (the collector's count; see TemporaryRule).
Amount temporary(const ShownSite& site);

// Long-lived: lived longer than `threshold` seconds (freed late, or never and allocated
// that long before the end).
inline bool long_lived(double lived_seconds, double threshold_seconds) {
    return lived_seconds > threshold_seconds;
}

// The temporary-block rule, replayed from an event recording, as the collector applies it
// when the block is freed: each thread's latest new block stays a candidate through its own
// resizes, and stops being one at the thread's next allocation, free or resize of any
// other block. heaptrack applies it process-wide and matches a free to the latest
// allocation by size and stack, so it also takes a block freed just after an equal one was
// allocated ("replace the previous buffer") for temporary; this one matches the block.
class TemporaryRule {
  public:
    // A new block (malloc, calloc, realloc(NULL)).
    void allocated(uint32_t thread, uint64_t address) { latest_of(thread) = address + 1; }
    // A realloc of `old_address` to `new_address`: the block stays the same one.
    void resized(uint32_t thread, uint64_t old_address, uint64_t new_address) {
        uint64_t& latest = latest_of(thread);
        latest = latest == old_address + 1 ? new_address + 1 : 0;
    }
    // A free: whether the block freed was temporary.
    bool freed(uint32_t thread, uint64_t address) {
        uint64_t& latest = latest_of(thread);
        bool temporary = latest == address + 1;
        latest = 0;
        return temporary;
    }

  private:
    // Events come in runs of one thread: one lookup a run (the map's elements never move).
    uint64_t& latest_of(uint32_t thread) {
        if (last_ == nullptr || thread != last_thread_) {
            last_thread_ = thread;
            last_ = &latest_[thread];
        }
        return *last_;
    }

    std::unordered_map<uint32_t, uint64_t> latest_;  // address + 1; 0: none
    uint32_t last_thread_ = 0;
    uint64_t* last_ = nullptr;
};

// Where a site's blocks grew: for each shown site, from the profile's pairs of a site and a
// growing stack (SitesProfile::grown), the growing realloc named by the innermost frame of
// its folded stack (describe(), with "via" the wrapper it called realloc through), the
// pairs of the site's raw sites added up by that name, largest at exit first. A realloc
// whose folded stack is the site's own (a buffer grown by the call that allocated it,
// realloc(NULL) first) is no other place: it is left out. Sets ShownSite::grown.
void add_grown_at(std::vector<ShownSite>& sites, const SitesProfile& profile,
                  Symbolizer& symbolizer);

// A site as another run of the same program names it: for each frame, its module's file
// name, its function and the call's line counted from the function's first line (so lines
// added above the function, or in another function, leave it the same), never an address.
// Frames without a function are named by module and offset, which only the same build
// shares. The module named `program` (program_of) is named as the program, whatever its
// file is called, so two builds of it under different names compare.
std::string site_identity(const ShownSite& site, const std::string& program);

// The program a profile is of (its first module's file name), "" when unknown: --diff
// says so when two runs are of different programs.
std::string program_of(const SitesProfile& profile);

}  // namespace memusagestat
