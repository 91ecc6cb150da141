// SPDX-License-Identifier: MIT
// What only the event recording can tell about each shown site: how long its blocks lived,
// the most it held at once, its blocks at the heap's peak, and its long-lived blocks.
// Made by replaying the recording (site_lifetimes_of, site_replay.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memusagestat {

struct SiteLifetime {
    uint64_t blocks = 0;         // blocks whose life ended in the recording, or was cut by its end
    double total_lifetime = 0;   // seconds, summed over those blocks; a block alive at the end
                                 // lives until the end
    uint64_t max_bytes = 0;      // the most bytes the site held at once
    uint64_t max_blocks = 0;     // its blocks at that moment
    uint64_t bytes_at_peak = 0;  // held when the heap was at its peak (its first time there)
    uint64_t blocks_at_peak = 0;
    uint64_t bytes_at_end = 0, blocks_at_end = 0;  // still allocated when the recording ended
    // Blocks that lived longer than the long-lived threshold (freed late, or never and
    // born longer than that before the end).
    uint64_t long_lived_blocks = 0;
    uint64_t long_lived_bytes = 0;  // their sizes when their lives ended
    uint64_t long_lived_freed = 0;  // of them, freed before the end
    double long_lived_total = 0;    // seconds, summed
    double long_lived_longest = 0;  // seconds
};

struct RunLifetimes {
    double duration = 0;   // seconds from the recording's start to its end
    double peak_time = 0;  // seconds from the start to the heap's peak
    uint64_t heap_peak = 0;
    // The heap over the run at events spread evenly through the recording, fewer than
    // twice kHeapSamples of them (the massif file's snapshots between its start, peak and
    // end). Every kDetailedEvery-th (the 10th, 20th, ...) also keeps the
    // bytes each shown site held then, as valgrind's massif details every 10th snapshot.
    static constexpr size_t kHeapSamples = 100;
    static constexpr size_t kDetailedEvery = 10;
    struct HeapSample {
        double seconds = 0;  // from the start, after the event
        uint64_t heap = 0;
        bool detailed = false;
        std::vector<std::pair<size_t, uint64_t>> held;  // (shown site, bytes > 0) if detailed
        uint64_t bytes_churned = 0;  // bytes allocated and freed from the start, this included
    };
    // The same at the heap's peak and at the end: massif's time in bytes (time_unit: B),
    // which moves with every event however short the run.
    uint64_t peak_bytes_churned = 0, bytes_churned = 0;
    std::vector<HeapSample> heap_samples;
    // One per shown site, in shown_sites' order. Its long-lived figures leave out the
    // blocks the runtimes keep (ShownSite::kept_ids), which are only totalled, below.
    std::vector<SiteLifetime> sites;
    uint64_t kept_long_lived_blocks = 0, kept_long_lived_bytes = 0;
    std::string problem;  // why the recording stopped early, or why it has no times; "" if none
};

}  // namespace memusagestat
