// SPDX-License-Identifier: MIT
#include "reports/leak_report.h"

#include <algorithm>

#include "sites/definitions.h"

namespace memusagestat {

LeakReport leak_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                       const Symbolizer& symbolizer, unsigned top) {
    LeakReport report;
    struct Leak {
        const ShownSite* site;
        AllocationSite figures;  // the program's own
    };
    std::vector<Leak> leaks;
    Amount runtime;
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

    std::string& out = report.text;
    // "(top N of M)" after a heading whose list is cut.
    auto bounded = [&] {
        return leaks.size() > top
                   ? " (top " + std::to_string(top) + " of " + std::to_string(leaks.size()) + ")"
                   : std::string();
    };
    auto write_leaks = [&] {
        for (size_t i = 0; i < leaks.size() && i < top; ++i) {
            write_entry(out, i + 1,
                        plural(leaks[i].figures.bytes_leaked(), "byte", "bytes") + " in " +
                            plural(leaks[i].figures.blocks_leaked(), "block", "blocks"),
                        *leaks[i].site);
            write_grown_at(out, *leaks[i].site, true, leaks[i].figures.bytes_leaked());
        }
    };
    // Sampled sites: what the heap held at exit is known exactly, whatever the sample caught.
    // The verdict and the headline come from it; the sites' estimates are beside it.
    if (profile.sample_interval != 0 && profile.has_heap_at_exit) {
        uint64_t estimate = report.bytes;
        uint64_t program =
            profile.heap_at_exit > runtime.bytes ? profile.heap_at_exit - runtime.bytes : 0;
        if (program == 0) {
            out = "No leaks: every block the program allocated was freed.\n";
            leaks.clear();
        } else {
            out = "Leaks: " + plural(program, "byte", "bytes") +
                  " never freed (exact: the heap at exit, less the runtime's estimated share)\n";
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
                   "\n\nBytes never freed, by stack, largest first (estimates)" + bounded() + ":\n";
            write_leaks();
        }
    } else if (leaks.empty()) {
        out = "No leaks: every block the program allocated was freed.\n";
    } else {
        out = "Leaks: " + plural(report.bytes, "byte", "bytes") + " in " +
              plural(report.blocks, "block", "blocks") + " never freed, from " +
              plural(leaks.size(), "stack", "stacks") +
              " (still allocated at exit; whether still reachable is not known)\n\n"
              "Bytes never freed, by stack, largest first" +
              bounded() + ":\n";
        write_leaks();
    }
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
