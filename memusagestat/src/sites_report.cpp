#include "sites_report.h"

#include <memusage/sites_format.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>

#include "frame_folding.h"

namespace memusagestat {
namespace {

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIx64, value);
    return text;
}

std::string describe(const SourceFrame& frame) {
    std::string text;
    if (!frame.function.empty() && !frame.file.empty())
        text = frame.function + " (" + frame.file + ":" + std::to_string(frame.line) + ")";
    else if (!frame.function.empty())
        text = frame.function + " (in " + frame.module + ")";
    else if (!frame.module.empty())
        text = frame.module + "+" + hex(frame.offset);
    else
        text = hex(frame.offset);
    if (frame.inlined) text += " [inlined]";
    return text;
}

// A site as the report shows it: its folded stack, and the figures of every raw site
// that folds to the same.
struct ShownSite {
    std::vector<std::string> lines;  // the stack, innermost first, already described
    std::string via;                 // the outermost wrapper it allocated through, if any
    AllocationSite figures;
};

std::vector<std::string> described_stack(const AllocationSite& site, const SitesProfile& profile,
                                         Symbolizer& symbolizer, std::string& via) {
    std::vector<SourceFrame> frames;
    for (uint64_t address : site.frames) {
        const std::vector<SourceFrame>& expanded = symbolizer.frames_of(address);
        frames.insert(frames.end(), expanded.begin(), expanded.end());
    }
    if (frames.empty()) {
        if (profile.unwinder_missing) return {"(no stack: libunwind.so.8 could not be loaded)"};
        if (site.id == memusage::sites_format::kTableFullSiteId)
            return {"(stacks first seen after the stack table filled up)"};
        return {"(no stack)"};
    }
    size_t first = 0;
    while (first < frames.size() && is_wrapper(frames[first])) ++first;
    if (first == frames.size()) first = 0;  // nothing but wrappers: show them all
    if (first > 0) {
        const SourceFrame& outermost_wrapper = frames[first - 1];
        via = outermost_wrapper.function.empty() ? describe(outermost_wrapper)
                                                 : short_name(outermost_wrapper.function);
    }
    // Down to main, or to the code that started the thread; then without the wrappers a
    // thread's entry goes through (std::thread's, the runtime's).
    size_t end = first + 1;
    while (end < frames.size() && frames[end - 1].function != "main" && !is_below_main(frames[end]))
        ++end;
    while (end > first + 1 && is_wrapper(frames[end - 1])) --end;
    std::vector<std::string> lines;
    for (size_t i = first; i < end; ++i) lines.push_back(describe(frames[i]));
    return lines;
}

void add_figures(AllocationSite& into, const AllocationSite& site) {
    into.blocks_allocated += site.blocks_allocated;
    into.bytes_allocated += site.bytes_allocated;
    into.blocks_freed += site.blocks_freed;
    into.bytes_freed += site.bytes_freed;
    into.bytes_at_peak += site.bytes_at_peak;
}

std::vector<ShownSite> shown_sites(const SitesProfile& profile, Symbolizer& symbolizer) {
    std::vector<ShownSite> shown;
    std::map<std::string, size_t> by_key;
    for (const AllocationSite& site : profile.sites) {
        // The first refused call's site comes without figures when nothing else came from it.
        if (site.blocks_allocated == 0 && site.bytes_allocated == 0) continue;
        std::string via;
        std::vector<std::string> lines = described_stack(site, profile, symbolizer, via);
        std::string key = via;
        for (const std::string& line : lines) key += "\n" + line;
        auto [found, inserted] = by_key.emplace(key, shown.size());
        if (inserted) {
            ShownSite entry{std::move(lines), std::move(via), {}};
            entry.figures.id = site.id;
            shown.push_back(std::move(entry));
        }
        add_figures(shown[found->second].figures, site);
    }
    return shown;
}

std::string plural(uint64_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

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
};

void write_ranking(std::string& out, const Ranking& ranking, const std::vector<ShownSite>& sites,
                   unsigned top) {
    std::vector<const ShownSite*> ranked;
    for (const ShownSite& site : sites)
        if (ranking.value(site.figures) > 0) ranked.push_back(&site);
    std::stable_sort(ranked.begin(), ranked.end(), [&](const ShownSite* a, const ShownSite* b) {
        return ranking.value(a->figures) > ranking.value(b->figures);
    });
    out += "\n";
    out += ranking.title;
    if (ranked.size() > top)
        out += " (top " + std::to_string(top) + " of " + std::to_string(ranked.size()) + ")";
    out += ":\n";
    if (ranked.empty()) out += "   none\n";
    for (size_t i = 0; i < ranked.size() && i < top; ++i) {
        const ShownSite& site = *ranked[i];
        out += std::string(i + 1 < 10 ? "  " : " ") + "#" + std::to_string(i + 1) + " " +
               ranking.figures(site.figures) + "\n";
        for (size_t line = 0; line < site.lines.size(); ++line) {
            out += std::string(line == 0 ? "       at " : "       by ") + site.lines[line];
            if (line == 0 && !site.via.empty()) out += " via " + site.via;
            out += "\n";
        }
    }
}

// The allocation limit's or failure injection's first failed call (memusage --limit,
// --fail-*): where the program met it.
void write_first_refused(std::string& out, const SitesProfile& profile, Symbolizer& symbolizer) {
    if (profile.first_refused_site == 0) return;
    for (const AllocationSite& site : profile.sites) {
        if (site.id != profile.first_refused_site) continue;
        std::string via;
        std::vector<std::string> lines = described_stack(site, profile, symbolizer, via);
        out += "\nFirst refused allocation:\n";
        for (size_t line = 0; line < lines.size(); ++line) {
            out += std::string(line == 0 ? "       at " : "       by ") + lines[line];
            if (line == 0 && !via.empty()) out += " via " + via;
            out += "\n";
        }
        return;
    }
}

}  // namespace

std::string sites_report(const SitesProfile& profile, Symbolizer& symbolizer,
                         const SitesReportOptions& options) {
    std::vector<ShownSite> sites = shown_sites(profile, symbolizer);
    AllocationSite total;
    for (const ShownSite& site : sites) add_figures(total, site.figures);

    std::string out =
        "Allocation sites: " + std::to_string(sites.size()) +
        "; heap peak: " + std::to_string(profile.heap_peak) +
        " bytes; still allocated at exit: " + plural(total.bytes_leaked(), "byte", "bytes") +
        " in " + plural(total.blocks_leaked(), "block", "blocks") + "\n";
    if (profile.sample_interval != 0)
        out += "(figures per site are estimates from sampling every " +
               std::to_string(profile.sample_interval) + " bytes on average)\n";
    uint64_t peak = profile.heap_peak;
    write_ranking(
        out,
        {"Bytes held at the heap peak", [](const AllocationSite& s) { return s.bytes_at_peak; },
         [peak](const AllocationSite& s) {
             return plural(s.bytes_at_peak, "byte", "bytes") + percent_of(s.bytes_at_peak, peak);
         }},
        sites, options.top);
    write_ranking(out,
                  {"Bytes still allocated at exit (leaks)",
                   [](const AllocationSite& s) { return s.bytes_leaked(); },
                   [](const AllocationSite& s) {
                       return plural(s.bytes_leaked(), "byte", "bytes") + " in " +
                              plural(s.blocks_leaked(), "block", "blocks");
                   }},
                  sites, options.top);
    write_ranking(out,
                  {"Bytes allocated", [](const AllocationSite& s) { return s.bytes_allocated; },
                   [](const AllocationSite& s) {
                       return plural(s.bytes_allocated, "byte", "bytes") + " in " +
                              plural(s.blocks_allocated, "call", "calls");
                   }},
                  sites, options.top);

    write_first_refused(out, profile, symbolizer);

    std::vector<std::string> notes = symbolizer.notes();
    if (profile.ended_by_crash)
        notes.push_back("the program died of a fatal signal: the figures are those of that moment");
    if (profile.stack_table_full)
        notes.push_back(
            "the stack table filled up: stacks first seen after that count as one site");
    if (profile.unwinder_missing)
        notes.push_back("libunwind.so.8 could not be loaded in the run: no stacks were recorded");
    if (!notes.empty()) out += "\n";
    for (const std::string& note : notes) out += "Note: " + note + "\n";
    return out;
}

std::string report_sites_file(const std::string& path, const SitesReportOptions& options,
                              std::string& report) {
    SitesProfile profile;
    if (std::string error = read_sites_file(path, profile); !error.empty()) return error;
    Symbolizer symbolizer(profile.modules);
    report = sites_report(profile, symbolizer, options);
    return {};
}

}  // namespace memusagestat
