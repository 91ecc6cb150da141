// SPDX-License-Identifier: MIT
#include "reports/sites_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>

#include "sites/shown_sites.h"

namespace memusagestat {
namespace {

std::string percent_of(uint64_t part, uint64_t whole) {
    if (whole == 0) return "";
    char text[32];
    std::snprintf(text, sizeof text, " (%.1f%%)",
                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
    return text;
}

struct Ranking {
    const char* title;
    std::function<uint64_t(const AllocationSite&)> value;
    std::function<std::string(const AllocationSite&)> figures;
    // A ranking of leaks: what the runtimes keep until exit is left out of it (as in the
    // leak report) and totalled on one line after it.
    bool of_leaks = false;
    // Where its blocks grew (ShownSite::grown), at the peak or at exit, after each entry.
    enum class Grown { none, at_peak, at_exit } grown = Grown::none;
};

void write_ranking(std::string& out, const Ranking& ranking, const std::vector<ShownSite>& sites,
                   unsigned top) {
    struct Ranked {
        const ShownSite* site;
        AllocationSite figures;  // for a ranking of leaks, the program's own
    };
    std::vector<Ranked> ranked;
    AllocationSite kept;
    for (const ShownSite& site : sites) {
        if (ranking.of_leaks && ranking.value(site.kept_by_runtime) != 0)
            add_figures(kept, site.kept_by_runtime);
        AllocationSite figures = ranking.of_leaks ? site.program_figures() : site.figures;
        if (ranking.value(figures) != 0) ranked.push_back({&site, figures});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [&](const Ranked& a, const Ranked& b) {
        return ranking.value(a.figures) > ranking.value(b.figures);
    });
    out += "\n";
    out += ranking.title;
    if (ranked.size() > top)
        out += " (top " + std::to_string(top) + " of " + std::to_string(ranked.size()) + ")";
    out += ":\n";
    if (ranked.empty()) out += "   none\n";
    for (size_t i = 0; i < ranked.size() && i < top; ++i) {
        write_entry(out, i + 1, ranking.figures(ranked[i].figures), *ranked[i].site);
        if (ranking.grown != Ranking::Grown::none)
            write_grown_at(out, *ranked[i].site, ranking.grown == Ranking::Grown::at_exit,
                           ranking.value(ranked[i].figures));
    }
    out += kept_by_runtime_line(kept.bytes_leaked(), kept.blocks_leaked());
}

// The allocation limit's or failure injection's first failed call (memusage --limit,
// --fail-*): where the program met it.
void write_first_refused(std::string& out, const SitesProfile& profile, Symbolizer& symbolizer) {
    if (profile.first_refused_site == 0) return;
    for (const AllocationSite& site : profile.sites) {
        if (site.id != profile.first_refused_site) continue;
        ShownSite shown = shown_site(site, profile, symbolizer);
        out += "\nFirst refused allocation:\n";
        for (size_t line = 0; line < shown.line_count(); ++line) {
            out += std::string(line == 0 ? "       at " : "       by ") + shown.line(line);
            if (line == 0 && !shown.via.empty()) out += " via " + shown.via;
            out += "\n";
        }
        return;
    }
}

}  // namespace

std::string sites_report(const SitesProfile& profile, Symbolizer& symbolizer,
                         const SitesReportOptions& options) {
    return sites_report(profile, shown_sites(profile, symbolizer), symbolizer, options);
}

std::string sites_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                         Symbolizer& symbolizer, const SitesReportOptions& options) {
    AllocationSite total;
    for (const ShownSite& site : sites) add_figures(total, site.figures);

    // Sampled: the heap at exit is exact, the sites' share of it an estimate beside it.
    bool sampled_exact = profile.sample_interval != 0 && profile.has_heap_at_exit;
    std::string out =
        std::string(profile.since_attach ? "Allocation sites since the attach: "
                                         : "Allocation sites: ") +
        std::to_string(sites.size()) + "; heap peak: " + std::to_string(profile.heap_peak) +
        " bytes; still allocated at " + (profile.since_attach ? "detach: " : "exit: ") +
        (sampled_exact ? plural(profile.heap_at_exit, "byte", "bytes") +
                             " (sampled sites: " + plural(total.bytes_leaked(), "byte", "bytes") +
                             " in " + plural(total.blocks_leaked(), "block", "blocks") + ")"
                       : plural(total.bytes_leaked(), "byte", "bytes") + " in " +
                             plural(total.blocks_leaked(), "block", "blocks")) +
        "\n";
    if (profile.sample_interval != 0)
        out += "(figures per site are estimates from sampling every " +
               std::to_string(profile.sample_interval) + " bytes on average)\n";
    // Exact sites hold every heap block: what they did not hold at the peak was in the
    // memory maps that -m traces, which have no sites.
    if (profile.sample_interval == 0 && total.bytes_at_peak < profile.heap_peak)
        out += "(" + plural(profile.heap_peak - total.bytes_at_peak, "byte", "bytes") +
               " held at the heap peak belong to no site: memory maps traced with -m have none)\n";
    // Temporary blocks (heaptrack's): the cheapest allocations to remove, a stack buffer
    // or a reused one would do.
    if (profile.has_site_extras && total.temporary_blocks != 0)
        out += "Temporary blocks (freed before their thread's next allocation): " +
               std::to_string(total.temporary_blocks) + " of " +
               std::to_string(total.blocks_allocated) +
               percent_of(total.temporary_blocks, total.blocks_allocated) + ", " +
               plural(total.temporary_bytes, "byte", "bytes") + "\n";
    uint64_t peak = profile.heap_peak;
    write_ranking(
        out,
        {"Bytes held at the heap peak", [](const AllocationSite& s) { return s.bytes_at_peak; },
         [peak](const AllocationSite& s) {
             return plural(s.bytes_at_peak, "byte", "bytes") + percent_of(s.bytes_at_peak, peak);
         },
         false, Ranking::Grown::at_peak},
        sites, options.top);
    const std::string still_allocated = profile.since_attach
                                            ? "Bytes still allocated at detach (leaks)"
                                            : "Bytes still allocated at exit (leaks)";
    if (options.leaks_apart)
        out += "\n" + still_allocated + ": in the leak report below\n";
    else
        write_ranking(
            out,
            {still_allocated.c_str(), [](const AllocationSite& s) { return s.bytes_leaked(); },
             [](const AllocationSite& s) {
                 return plural(s.bytes_leaked(), "byte", "bytes") + " in " +
                        plural(s.blocks_leaked(), "block", "blocks");
             },
             true, Ranking::Grown::at_exit},
            sites, options.top);
    write_ranking(out,
                  {"Bytes allocated", [](const AllocationSite& s) { return s.bytes_allocated; },
                   [](const AllocationSite& s) {
                       return plural(s.bytes_allocated, "byte", "bytes") + " in " +
                              plural(s.blocks_allocated, "call", "calls");
                   }},
                  sites, options.top);
    if (profile.has_site_extras && total.temporary_blocks != 0)
        write_ranking(out,
                      {"Temporary blocks (freed before the thread's next allocation)",
                       [](const AllocationSite& s) { return s.temporary_blocks; },
                       [](const AllocationSite& s) {
                           return plural(s.temporary_blocks, "block", "blocks") + " of " +
                                  std::to_string(s.blocks_allocated) + ", " +
                                  plural(s.temporary_bytes, "byte", "bytes");
                       }},
                      sites, options.top);

    write_first_refused(out, profile, symbolizer);
    out += profile_notes(profile, symbolizer);
    return out;
}

}  // namespace memusagestat
