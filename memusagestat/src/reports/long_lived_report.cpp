// SPDX-License-Identifier: MIT
#include "reports/long_lived_report.h"

#include <algorithm>

#include "reports/duration.h"

namespace memusagestat {

std::string long_lived_report(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                              const RunLifetimes& lifetimes, double threshold,
                              const Symbolizer& symbolizer, unsigned top) {
    std::vector<size_t> listed;
    uint64_t blocks = 0, bytes = 0;
    // As in the leak report, what the runtimes keep until exit (long-lived by design) is
    // left out of the sites' figures and totalled apart.
    for (size_t i = 0; i < sites.size() && i < lifetimes.sites.size(); ++i) {
        const SiteLifetime& life = lifetimes.sites[i];
        if (life.long_lived_blocks == 0) continue;
        listed.push_back(i);
        blocks += life.long_lived_blocks;
        bytes += life.long_lived_bytes;
    }
    std::stable_sort(listed.begin(), listed.end(), [&](size_t a, size_t b) {
        const SiteLifetime& x = lifetimes.sites[a];
        const SiteLifetime& y = lifetimes.sites[b];
        if (x.long_lived_bytes != y.long_lived_bytes)
            return x.long_lived_bytes > y.long_lived_bytes;
        return x.long_lived_longest > y.long_lived_longest;
    });

    const std::string limit = format_duration(threshold);
    const std::string run = " (of a " + format_duration(lifetimes.duration) + " run)";
    std::string out;
    if (listed.empty()) {
        out = "No long-lived blocks: none lived longer than " + limit + run + ".\n";
    } else {
        out = "Long-lived blocks: " + plural(blocks, "block", "blocks") + " (" +
              plural(bytes, "byte", "bytes") + ") lived longer than " + limit + run + ", from " +
              plural(listed.size(), "stack", "stacks") +
              "\n\nBytes in blocks that lived longer than " + limit + ", by stack, largest first" +
              (listed.size() > top
                   ? " (top " + std::to_string(top) + " of " + std::to_string(listed.size()) + ")"
                   : std::string()) +
              ":\n";
        size_t rank = 0;
        for (size_t i : listed) {
            if (rank == top) break;
            const SiteLifetime& life = lifetimes.sites[i];
            uint64_t kept = life.long_lived_blocks - life.long_lived_freed;
            std::string fates = kept == 0 ? "all freed"
                                : life.long_lived_freed == 0
                                    ? "never freed"
                                    : std::to_string(life.long_lived_freed) + " freed, " +
                                          std::to_string(kept) + " never freed";
            write_entry(out, ++rank,
                        plural(life.long_lived_bytes, "byte", "bytes") + " in " +
                            plural(life.long_lived_blocks, "block", "blocks") + " (" + fates +
                            "); lifetime mean " +
                            format_duration(life.long_lived_total /
                                            static_cast<double>(life.long_lived_blocks)) +
                            ", longest " + format_duration(life.long_lived_longest),
                        sites[i]);
            // Of those never freed, where the site's blocks still held at exit grew (the
            // sites file knows the blocks held at exit, not each one's lifetime).
            if (kept != 0)
                write_grown_at(out, sites[i], true, UINT64_MAX, " still allocated at exit");
        }
    }
    out += kept_by_runtime_line(lifetimes.kept_long_lived_bytes, lifetimes.kept_long_lived_blocks);
    std::string notes = profile_notes(profile, symbolizer);
    // The recording names the site of the sampled blocks only, and not their weights.
    if (profile.sample_interval != 0)
        notes += (notes.empty() ? "\n" : "") +
                 std::string("Note: the sites were sampled (a block every ") +
                 std::to_string(profile.sample_interval) +
                 " bytes on average): only the sampled blocks are listed, each counted once, "
                 "so the figures are of the sample, not estimates of the run\n";
    if (!lifetimes.problem.empty())
        notes += (notes.empty() ? "\n" : "") + std::string("Note: ") + lifetimes.problem + "\n";
    return out + notes;
}

}  // namespace memusagestat
