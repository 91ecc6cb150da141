// SPDX-License-Identifier: MIT
#include "reports/leak_report.h"

#include <algorithm>

#include "sites/definitions.h"

namespace memusagestat {

namespace {

struct Leak {
    const ShownSite* site;
    AllocationSite figures;  // the program's own
};

// The sites' leaks, largest first, and what the runtimes kept at exit: the report's
// figures count the leaks, `runtime` the runtimes' blocks.
std::vector<Leak> leaks_of(const std::vector<ShownSite>& sites, LeakReport& report,
                           Amount& runtime) {
    std::vector<Leak> leaks;
    for (const ShownSite& site : sites) {
        const Amount kept = kept_at_exit(site), leak = leaked(site);
        runtime.bytes += kept.bytes;
        runtime.blocks += kept.blocks;
        if (leak.blocks == 0 && leak.bytes == 0) continue;
        leaks.push_back({&site, site.program_figures()});
        report.blocks += leak.blocks;
        report.bytes += leak.bytes;
    }
    std::stable_sort(leaks.begin(), leaks.end(), [](const Leak& a, const Leak& b) {
        if (a.figures.bytes_leaked() != b.figures.bytes_leaked())
            return a.figures.bytes_leaked() > b.figures.bytes_leaked();
        return a.figures.blocks_leaked() > b.figures.blocks_leaked();
    });
    return leaks;
}

// "(top N of M)" after a heading whose list is cut.
std::string bounded(const std::vector<Leak>& leaks, unsigned top) {
    return leaks.size() > top
               ? " (top " + std::to_string(top) + " of " + std::to_string(leaks.size()) + ")"
               : std::string();
}

// The top leaks, each with its stack and where it grew.
void write_leaks(std::string& out, const std::vector<Leak>& leaks, unsigned top) {
    for (size_t i = 0; i < leaks.size() && i < top; ++i) {
        write_entry(out, i + 1,
                    plural(leaks[i].figures.bytes_leaked(), "byte", "bytes") + " in " +
                        plural(leaks[i].figures.blocks_leaked(), "block", "blocks"),
                    *leaks[i].site);
        write_grown_at(out, *leaks[i].site, true, leaks[i].figures.bytes_leaked());
    }
}

// "No leaks" and when the blocks were still allocated: at exit, or for an attached process
// (SitesProfile::since_attach) at the detach, of the blocks allocated since the attach.
std::string no_leaks(const SitesProfile& profile) {
    return profile.since_attach
               ? "No leaks: every block the program allocated since the attach was freed by the "
                 "detach.\n"
               : "No leaks: every block the program allocated was freed.\n";
}
const char* end_word(const SitesProfile& profile) {
    return profile.since_attach ? "detach" : "exit";
}

// Sampled sites: what the heap held at exit is known exactly, whatever the sample caught.
// The verdict and the headline come from it; the sites' estimates are beside it.
void write_sampled_leaks(LeakReport& report, const SitesProfile& profile, std::vector<Leak>& leaks,
                         const Amount& runtime, unsigned top) {
    std::string& out = report.text;
    uint64_t estimate = report.bytes;
    uint64_t program =
        profile.heap_at_exit > runtime.bytes ? profile.heap_at_exit - runtime.bytes : 0;
    if (program == 0) {
        out = no_leaks(profile);
        leaks.clear();
    } else {
        out = "Leaks: " + plural(program, "byte", "bytes") +
              (profile.since_attach ? " allocated since the attach and" : "") +
              " never freed (exact: the heap at " + end_word(profile) +
              ", less the runtime's estimated share)\n";
    }
    report.bytes = program;
    if (program == 0)
        report.blocks = 0;
    else if (report.blocks == 0)
        report.blocks = 1;  // at least one block holds them
    if (program != 0 && leaks.empty())
        out +=
            "The sampled sites hold none of them: no stack to show (a smaller "
            "--sites-sample interval, or exact --sites, would)\n";
    else if (program != 0) {
        out += "Sampled sites' estimate: " + plural(estimate, "byte", "bytes") + " from " +
               plural(leaks.size(), "stack", "stacks") +
               "\n\nBytes never freed, by stack, largest first (estimates)" + bounded(leaks, top) +
               ":\n";
        write_leaks(out, leaks, top);
    }
}

// Exact sites: the leaks are the blocks the sites' stacks never freed.
void write_exact_leaks(LeakReport& report, const SitesProfile& profile,
                       const std::vector<Leak>& leaks, unsigned top) {
    std::string& out = report.text;
    if (leaks.empty()) {
        out = no_leaks(profile);
        return;
    }
    out = "Leaks: " + plural(report.bytes, "byte", "bytes") + " in " +
          plural(report.blocks, "block", "blocks") +
          (profile.since_attach ? " allocated since the attach and" : "") + " never freed, from " +
          plural(leaks.size(), "stack", "stacks") + " (still allocated at " + end_word(profile) +
          "; whether still reachable is not known)\n\n"
          "Bytes never freed, by stack, largest first" +
          bounded(leaks, top) + ":\n";
    write_leaks(out, leaks, top);
}

}  // namespace

LeakReport leak_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                       const Symbolizer& symbolizer, unsigned top) {
    LeakReport report;
    Amount runtime;
    std::vector<Leak> leaks = leaks_of(sites, report, runtime);
    if (profile.sample_interval != 0 && profile.has_heap_at_exit)
        write_sampled_leaks(report, profile, leaks, runtime, top);
    else
        write_exact_leaks(report, profile, leaks, top);
    std::string& out = report.text;
    out += kept_by_runtime_line(runtime.bytes, runtime.blocks);
    std::string notes = profile_notes(profile, symbolizer);
    if (profile.sample_interval != 0)
        notes += (notes.empty() ? "\n" : "") +
                 std::string("Note: the figures are estimates from sampling every ") +
                 std::to_string(profile.sample_interval) +
                 " bytes on average: a leak the sample missed is not listed\n";
    out += notes;
    return report;
}

}  // namespace memusagestat
