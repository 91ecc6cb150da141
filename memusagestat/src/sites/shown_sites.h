// SPDX-License-Identifier: MIT
// The sites of a profile as every report and export shows them: each stack symbolised,
// wrapper frames folded into the site that called them, and raw sites that are the same
// once folded counted as one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "read/sites_reader.h"
#include "sites/symbolizer.h"

namespace memusagestat {

struct ShownSite {
    // The folded stack, innermost first (may be empty): the symbolizer's own frames, shared
    // by every site that passed through them, so they hold while the Symbolizer lives.
    std::vector<const SourceFrame*> frames;
    std::string placeholder;    // what stands for the stack when it has no frames
    std::string via;            // the outermost wrapper it allocated through, if any
    AllocationSite figures;     // the sum of the raw sites folded into it
    std::vector<uint32_t> ids;  // those raw sites' ids (SiteRecord::id)
    // Of `figures`, those of the raw sites whose own stacks the C or C++ runtime allocated
    // through for itself (runtime_blocks.h), and of `ids`, theirs. Such blocks live until
    // exit by design; the leak reports count them apart. Kept per raw site: one shown site
    // may fold the runtime's blocks and the program's together.
    AllocationSite kept_by_runtime;
    std::vector<uint32_t> kept_ids;
    // The stack was cut at this many frames, its outer callers not recorded; 0: whole.
    uint32_t cut_at = 0;
    // Where its blocks grew (definitions.h's grown_at), largest at exit first: blocks a
    // realloc elsewhere made larger, by where that realloc was. Empty when none did.
    struct Grown {
        std::string where;  // "function (file:line)", as describe() names a frame
        uint64_t bytes_at_peak = 0, blocks_at_peak = 0;
        uint64_t bytes_at_exit = 0, blocks_at_exit = 0;
    };
    std::vector<Grown> grown;

    // `figures` less `kept_by_runtime`: what the program allocated here for itself.
    AllocationSite program_figures() const;
    // The stack described, a line a frame (describe()), or the placeholder alone. Made when
    // asked: kept for every site they would outweigh the rest of the analysis.
    size_t line_count() const { return frames.empty() ? !placeholder.empty() : frames.size(); }
    std::string line(size_t index) const;
};

// How many frames a site's stack was cut at (the collector keeps at most the profile's
// max_depth), 0 when it is whole.
uint32_t cut_at(const AllocationSite& site, const SitesProfile& profile);
// What stands for the callers a cut stack lost, as its outermost frame in folded stacks and
// flame graphs: "[cut at 64 frames]". Cut stacks then share one root instead of scattering
// their roots among whatever frames the cut left outermost.
std::string cut_root(uint32_t cut_at);

// "function (file:line)", "function (in module)", "module+0xoffset"; " [inlined]" after.
std::string describe(const SourceFrame& frame);

// In the order of the profile's sites, by first appearance. A site with no figures (the
// first refused call's, when nothing else came from its stack) is left out. The sites'
// frames are the symbolizer's: it must outlive them.
std::vector<ShownSite> shown_sites(const SitesProfile& profile, Symbolizer& symbolizer);

// One raw site alone, folded.
ShownSite shown_site(const AllocationSite& site, const SitesProfile& profile,
                     Symbolizer& symbolizer);
// The same without where its blocks grew (ShownSite::grown).
ShownSite shown_stack(const AllocationSite& site, const SitesProfile& profile,
                      Symbolizer& symbolizer);

// Adds one site's figures to another's.
void add_figures(AllocationSite& into, const AllocationSite& site);

// "1 block", "2 blocks".
std::string plural(uint64_t count, const char* one, const char* many);

// After a listing of leaks or long-lived blocks, the blocks it leaves out because the
// runtimes keep them until exit by design: "\nNot counted: ...\n", or "" when none.
std::string kept_by_runtime_line(uint64_t bytes, uint64_t blocks);

// One entry of a listing: "  #RANK FIGURES", then the stack, "at" its innermost frame (with
// "via" the wrapper) and "by" the ones after, and "by ..." where the stack was cut. A
// recursion is one line ("by f (file:line) xN"); past kShownStackLines lines, one more says
// how many frames are left out.
inline constexpr size_t kShownStackLines = 24;
void write_entry(std::string& out, size_t rank, const std::string& figures, const ShownSite& site);

// After an entry, where its blocks grew (ShownSite::grown), one line each: "grown at
// WHERE: N bytes in M blocks", of the blocks held at the heap peak (`at_exit` false) or
// at exit, at most `most` bytes in all (an entry of the program's own leaks).
// `after`: what follows the figures ("" or, say, " still allocated at exit").
void write_grown_at(std::string& out, const ShownSite& site, bool at_exit,
                    uint64_t most = UINT64_MAX, const char* after = "");

// What the reader of any report of this profile must know: modules that could not be read,
// a run that crashed, a stack table that filled up, no unwinder. "Note: ..." lines, after
// an empty line; empty when there is nothing to say.
std::string profile_notes(const SitesProfile& profile, const Symbolizer& symbolizer);

}  // namespace memusagestat
