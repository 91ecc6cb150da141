// SPDX-License-Identifier: MIT
// The report's `buckets` (web/DATA.md): exact figures of every event of the run (or of the
// window of --html-window) gathered into equal time buckets at several resolutions, so the
// page computes any window's figures as sums and maxima over whole buckets, however many
// events the run had and however few of them the report keeps.
//
// Per bucket: the allocating calls and the bytes they asked for (as the text summary counts
// them: a resize counts its growth), the frees, the heap when the bucket begins, its least
// and greatest inside (the level carried in included), when the greatest was first reached,
// and the sites holding the heap at that moment, largest first.
//
// Two passes over the events. The first (`add`) counts and finds, for each bucket, the event
// after which its greatest heap is first reached; the second (`site_changed`, `passed`)
// replays the bytes each site holds and takes their largest at those moments only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

namespace memusagestat {

class HeapBuckets {
  public:
    static constexpr size_t kFinest = 4096;
    static constexpr size_t kFanout = 8;
    // How many sites each level keeps per bucket, finest first; the rest of the heap at the
    // moment is the sites left out (the page says how much).
    static constexpr size_t kSitesPerBucket[] = {16, 64, 256, 1024, 2000, 2000, 2000};

    // Buckets laid over [start, end] seconds; `finest`: the finest level's count, a power of
    // kFanout (the levels above it have kFanout times fewer buckets, down to one).
    HeapBuckets(double start, double end, size_t finest = kFinest);

    enum class Kind : uint8_t { allocate, release, resize };

    // First pass: every event of the recording in order, `heap` after it; `allocated`: the
    // bytes asked for (the growth of a resize, 0 for a free). Events before `start` set the
    // level carried into the first bucket; those after `end` are not counted.
    void add(double time, Kind kind, uint64_t allocated, int64_t heap);
    // After the first pass.
    void finish_counts();

    // Second pass, the same events in the same order: the changes of the bytes each site
    // holds that one event made (`site` as the report numbers sites, -1 none), then `passed`
    // with the event's time.
    void site_changed(int32_t site, int64_t bytes);
    void passed(double time);

    nlohmann::json json() const;

    // The finest level's figures, for the tests.
    struct Bucket {
        uint64_t calls = 0, bytes = 0, frees = 0;
        int64_t heap = 0, low = 0, high = 0;  // at the start, least, greatest
        double high_time = 0;
        int64_t high_after = -1;  // the event after which `high` is first reached; -1 before any
    };
    const std::vector<Bucket>& finest() const { return levels_.front(); }

  private:
    size_t bucket_of(double time) const;
    void open_until(size_t bucket);  // the empty buckets before `bucket` carry the level on

    double start_, end_;
    std::vector<std::vector<Bucket>> levels_;  // finest first

    // First pass.
    int64_t position_ = 0;  // events added
    int64_t heap_ = 0;      // after the last event added
    size_t open_ = 0;       // buckets begun (the finest level)

    // Second pass: the moments to take the sites at, each with how many sites it needs.
    // Event position (-1: before any) and how many sites it needs, in event order.
    std::vector<std::pair<int64_t, size_t>> moments_;
    size_t next_moment_ = 0;  // the next to take
    std::unordered_map<int64_t, std::vector<std::pair<int32_t, int64_t>>> taken_;
    std::vector<int64_t> held_;                         // bytes by site + 1
    std::vector<std::pair<int32_t, int64_t>> scratch_;  // take()'s, kept for its capacity
    int64_t replayed_ = 0;
    // The most bytes each site (by site + 1) held at once in [start, end] (from the level
    // carried in), and when first: a site's own peak, in event order, where the page's block
    // times (to 100 ns) could not order a free and an allocation in one tick.
    std::vector<int64_t> most_;
    std::vector<double> most_time_;
    std::vector<size_t> changed_;  // the slots the event being passed changed
    bool begun_ = false;           // an event at or after start has been passed
    void begin_most();
    void take(const std::pair<int64_t, size_t>& moment);
};

}  // namespace memusagestat
