// SPDX-License-Identifier: MIT
#include "sites/definitions.h"

#include <algorithm>
#include <map>

namespace memusagestat {
namespace {

// glibc's stdio allocates a stream's buffer here, on the stream's first use, and keeps it
// until exit (only valgrind's __libc_freeres hook frees it). The lines getline and
// getdelim allocate for the program come from __getdelim itself, not from here.
bool allocates_stdio_buffer(const SourceFrame& frame) {
    return frame.function == "_IO_file_doallocate" || frame.function == "_IO_wfile_doallocate";
}

// glibc loads libgcc_s (dlopen) the first time a thread unwinds for pthread_exit or
// pthread_cancel, and keeps it until exit: __libc_unwind_link_get since glibc 2.34 (in the
// dynamic symbol table, so named without debug files), pthread_cancel_init and
// __libgcc_s_init before. These functions load nothing else.
bool loads_unwinder(const SourceFrame& frame) {
    return frame.function == "__libc_unwind_link_get" || frame.function == "pthread_cancel_init" ||
           frame.function == "__libgcc_s_init";
}

// Calls whose blocks the runtime keeps for as long as what they made lives, which
// programs rarely end: a library loaded with dlopen (its link map, until dlclose), a
// thread (its thread-local storage, kept with glibc's cache of thread stacks).
// A shown stack's lines, to tell whether a growing stack folds to the site's own.
std::vector<std::string> lines_of(const ShownSite& site) {
    std::vector<std::string> lines;
    for (size_t i = 0; i < site.line_count(); ++i) lines.push_back(site.line(i));
    return lines;
}

bool keeps_its_blocks(const std::string& via) {
    return via == "dlopen" || via == "dlmopen" || via == "pthread_create" || via == "thrd_create";
}

bool allocates_stream_buffer(const std::vector<SourceFrame>& frames, const ShownFrames& shown) {
    for (size_t i = 0; i < shown.first && i < frames.size(); ++i)
        if (allocates_stdio_buffer(frames[i])) return true;
    return false;
}

}  // namespace

bool kept_by_runtime(const std::vector<SourceFrame>& frames, const ShownFrames& shown) {
    if (frames.empty()) return false;
    if (shown.first == 0 && is_wrapper(frames[0])) return true;  // nothing but wrappers
    for (size_t i = 0; i < shown.first; ++i)
        if (allocates_stdio_buffer(frames[i]) || loads_unwinder(frames[i])) return true;
    return shown.via != nullptr && !shown.via->function.empty() &&
           keeps_its_blocks(short_name(shown.via->function));
}

AllocationSite kept_of_site(const AllocationSite& site, const SitesProfile& profile,
                            const std::vector<SourceFrame>& frames, const ShownFrames& shown,
                            bool& whole) {
    whole = false;
    AllocationSite kept;
    if (!kept_by_runtime(frames, shown)) return kept;
    const bool only_standard_streams =
        profile.knows_standard_streams && allocates_stream_buffer(frames, shown) &&
        !(shown.first == 0 && !frames.empty() && is_wrapper(frames[0]));
    if (!only_standard_streams) {
        whole = true;
        add_figures(kept, site);
        return kept;
    }
    // The standard streams' buffers, allocated here and never freed.
    for (const SitesProfile::StreamBuffer& buffer : profile.standard_stream_buffers) {
        if (buffer.site_id != site.id || kept.blocks_allocated >= site.blocks_leaked()) continue;
        ++kept.blocks_allocated;
        kept.bytes_allocated += buffer.bytes;
    }
    if (kept.bytes_allocated > site.bytes_leaked()) kept.bytes_allocated = site.bytes_leaked();
    return kept;
}

Amount leaked(const ShownSite& site) {
    const AllocationSite program = site.program_figures();
    return {program.bytes_leaked(), program.blocks_leaked()};
}

Amount kept_at_exit(const ShownSite& site) {
    return {site.kept_by_runtime.bytes_leaked(), site.kept_by_runtime.blocks_leaked()};
}

Amount at_peak(const ShownSite& site) {
    return {site.figures.bytes_at_peak, site.figures.blocks_at_peak};
}

Amount allocated(const ShownSite& site) {
    return {site.figures.bytes_allocated, site.figures.blocks_allocated};
}

Amount temporary(const ShownSite& site) {
    return {site.figures.temporary_bytes, site.figures.temporary_blocks};
}

void add_grown_at(std::vector<ShownSite>& sites, const SitesProfile& profile,
                  Symbolizer& symbolizer) {
    if (profile.grown.empty()) return;
    std::map<uint32_t, size_t> site_of;  // raw site id -> shown site
    for (size_t i = 0; i < sites.size(); ++i)
        for (uint32_t id : sites[i].ids) site_of.emplace(id, i);
    std::map<uint32_t, const AllocationSite*> raw;
    for (const AllocationSite& site : profile.sites) raw.emplace(site.id, &site);
    // Each growing stack folded once: its name, and its shown stack to compare with sites'.
    struct Grower {
        std::string where;
        std::vector<std::string> lines;
        std::string via;
    };
    std::map<uint32_t, Grower> growers;
    for (const SitesProfile::Grown& pair : profile.grown) {
        auto into = site_of.find(pair.site_id);
        auto stack = raw.find(pair.grown_at);
        if (into == site_of.end() || stack == raw.end()) continue;
        auto [grower, fresh] = growers.try_emplace(pair.grown_at);
        if (fresh) {
            const ShownSite folded = shown_stack(*stack->second, profile, symbolizer);
            grower->second.lines = lines_of(folded);
            grower->second.via = folded.via;
            grower->second.where =
                folded.frames.empty() ? folded.placeholder : describe(*folded.frames.front());
            if (!folded.via.empty()) grower->second.where += " via " + folded.via;
        }
        ShownSite& site = sites[into->second];
        if (grower->second.via == site.via && grower->second.lines == lines_of(site)) continue;
        // Named, not captured: clang 14 takes no structured binding into a lambda.
        const std::string& where = grower->second.where;
        auto same = std::find_if(site.grown.begin(), site.grown.end(),
                                 [&](const ShownSite::Grown& g) { return g.where == where; });
        if (same == site.grown.end()) {
            site.grown.push_back({where});
            same = site.grown.end() - 1;
        }
        same->bytes_at_peak += pair.bytes_at_peak;
        same->blocks_at_peak += pair.blocks_at_peak;
        same->bytes_at_exit += pair.bytes_at_exit;
        same->blocks_at_exit += pair.blocks_at_exit;
    }
    for (ShownSite& site : sites)
        std::stable_sort(site.grown.begin(), site.grown.end(),
                         [](const ShownSite::Grown& a, const ShownSite::Grown& b) {
                             if (a.bytes_at_exit != b.bytes_at_exit)
                                 return a.bytes_at_exit > b.bytes_at_exit;
                             return a.bytes_at_peak > b.bytes_at_peak;
                         });
}

namespace {

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

std::string site_identity(const ShownSite& site, const std::string& program) {
    std::string key = site.cut_at != 0 ? cut_root(site.cut_at) : "";
    key += site.via;
    for (const SourceFrame* cached : site.frames) {
        const SourceFrame& frame = *cached;
        const std::string module = file_name(frame.module);
        key +=
            "\n" + (module == program ? std::string("(program)") : module) + "!" + frame.function;
        if (frame.function.empty())
            key += "+" + std::to_string(frame.offset);
        else if (frame.line != 0 && frame.function_line != 0)
            key += ":+" + std::to_string(frame.line - frame.function_line);
        else if (frame.line != 0)  // no first line known: the line itself
            key += ":" + std::to_string(frame.line);
    }
    if (site.frames.empty() && !site.placeholder.empty()) key += "\n" + site.placeholder;
    return key;
}

std::string program_of(const SitesProfile& profile) {
    return profile.modules.empty() ? "" : file_name(profile.modules.front().path);
}

}  // namespace memusagestat
