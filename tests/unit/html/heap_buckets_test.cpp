// SPDX-License-Identifier: MIT
#include "html/heap_buckets.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "html/page_events.h"
#include "page_files.h"

namespace memusagestat {
namespace {

using Kind = HeapBuckets::Kind;

// Both passes over events given as (time, kind, asked, heap, site, site's change).
struct Step {
    double time;
    Kind kind;
    uint64_t asked;
    int64_t heap;
    int32_t site;
    int64_t change;
};

nlohmann::json buckets_of(HeapBuckets& buckets, const std::vector<Step>& steps) {
    for (const Step& s : steps) buckets.add(s.time, s.kind, s.asked, s.heap);
    buckets.finish_counts();
    for (const Step& s : steps) {
        buckets.site_changed(s.site, s.change);
        buckets.passed(s.time);
    }
    return buckets.json();
}

TEST(HeapBuckets, EachBucketSumsItsEventsAndCarriesTheLevelIn) {
    HeapBuckets buckets(0.0, 1.0, 8);
    const nlohmann::json json = buckets_of(buckets, {
                                                        {0.01, Kind::allocate, 100, 100, 3, 100},
                                                        {0.02, Kind::allocate, 50, 150, 4, 50},
                                                        {0.30, Kind::release, 0, 50, 3, -100},
                                                        {0.90, Kind::allocate, 1000, 1050, 5, 1000},
                                                    });
    const auto& finest = buckets.finest();
    ASSERT_EQ(finest.size(), 8u);
    EXPECT_EQ(finest[0].calls, 2u);
    EXPECT_EQ(finest[0].bytes, 150u);
    EXPECT_EQ(finest[0].high, 150);
    EXPECT_EQ(finest[0].low, 0);
    // An empty bucket holds the level the one before left.
    EXPECT_EQ(finest[1].heap, 150);
    EXPECT_EQ(finest[1].low, 150);
    EXPECT_EQ(finest[1].high, 150);
    // The free's bucket: its greatest is the level it began with, at its start.
    EXPECT_EQ(finest[2].frees, 1u);
    EXPECT_EQ(finest[2].heap, 150);
    EXPECT_EQ(finest[2].high, 150);
    EXPECT_EQ(finest[2].low, 50);
    EXPECT_DOUBLE_EQ(finest[2].high_time, 0.25);
    EXPECT_EQ(finest[7].heap, 50);
    EXPECT_EQ(finest[7].high, 1050);
    EXPECT_DOUBLE_EQ(finest[7].high_time, 0.9);

    const auto& levels = json["levels"];
    ASSERT_EQ(levels.size(), 2u);  // 8 buckets, then the whole span
    EXPECT_EQ(levels[0]["sites"][0], nlohmann::json({3, 100, 4, 50}));
    EXPECT_EQ(levels[0]["sites"][2], nlohmann::json({3, 100, 4, 50}));  // held from before
    EXPECT_EQ(levels[0]["sites"][7], nlohmann::json({5, 1000, 4, 50}));
    EXPECT_EQ(levels[1]["count"], 1);
    EXPECT_EQ(levels[1]["calls"][0], 3);
    EXPECT_EQ(levels[1]["bytes"][0], 1150);
    EXPECT_EQ(levels[1]["frees"][0], 1);
    EXPECT_EQ(levels[1]["high"][0], 1050);
    EXPECT_EQ(levels[1]["low"][0], 0);
    EXPECT_EQ(levels[1]["sites"][0], nlohmann::json({5, 1000, 4, 50}));
}

// Each site's most bytes held at once, in event order even where two events share a time (an
// allocation before a free in one tick holds both blocks at once), and after whole events (a
// resize's new size counts once its old size is gone).
TEST(HeapBuckets, EachSitesMostHeldFollowsTheEventsOrder) {
    HeapBuckets buckets(0.0, 1.0, 8);
    const std::vector<Step> steps = {
        {0.1, Kind::allocate, 100, 100, 2, 100},
        {0.2, Kind::allocate, 50, 150, 2, 50},
        {0.2, Kind::release, 0, 50, 2, -100},
        {0.3, Kind::allocate, 10, 60, 7, 10},
    };
    buckets_of(buckets, steps);
    buckets.site_changed(2, -50);  // a resize of the site's block: 50 -> 120 bytes
    buckets.site_changed(2, 120);
    buckets.passed(0.4);
    const nlohmann::json most = buckets.json()["most_held"];
    EXPECT_EQ(most["site"], nlohmann::json({2, 7}));
    EXPECT_EQ(most["bytes"], nlohmann::json({150, 10}));
    EXPECT_EQ(most["time"], nlohmann::json({0.2, 0.3}));
}

TEST(HeapBuckets, AWindowStartsAtTheLevelAndTheSitesCarriedIntoIt) {
    HeapBuckets buckets(0.5, 1.0, 8);
    const nlohmann::json json = buckets_of(buckets, {
                                                        {0.20, Kind::allocate, 8000, 8000, 2, 8000},
                                                        {0.60, Kind::allocate, 10, 8010, 6, 10},
                                                        {1.50, Kind::allocate, 99, 8109, 6, 99},
                                                    });
    const auto& finest = buckets.finest();
    EXPECT_EQ(finest[0].heap, 8000);
    EXPECT_EQ(finest[0].high, 8000);
    EXPECT_EQ(finest[0].calls, 0u);
    EXPECT_EQ(json["levels"][0]["sites"][0], nlohmann::json({2, 8000}));
    EXPECT_EQ(finest[1].high, 8010);  // 0.6 s: the second of eight buckets of 62.5 ms
    // After the window's end: not counted.
    const auto& whole = json["levels"].back();
    EXPECT_EQ(whole["calls"][0], 1);
    EXPECT_EQ(whole["high"][0], 8010);
    EXPECT_EQ(whole["sites"][0], nlohmann::json({2, 8000, 6, 10}));
    EXPECT_DOUBLE_EQ(json["start"].get<double>(), 0.5);
}

TEST(HeapBuckets, TheFinestBucketsKeepTheLargestSitesTheWholeRunMore) {
    HeapBuckets buckets(0.0, 1.0, 8);
    std::vector<Step> steps;
    int64_t heap = 0;
    for (int32_t site = 0; site < 40; ++site) {
        heap += 100 + site;
        steps.push_back({0.01 + site * 0.001, Kind::allocate, 100u + site, heap, site, 100 + site});
    }
    const nlohmann::json json = buckets_of(buckets, steps);
    const auto& fine = json["levels"][0]["sites"][0];
    ASSERT_EQ(fine.size(), 2 * HeapBuckets::kSitesPerBucket[0]);
    EXPECT_EQ(fine[0], 39);  // the largest first
    EXPECT_EQ(fine[1], 139);
    EXPECT_EQ(json["levels"][1]["sites"][0].size(), 80u);  // every site, at the coarser level
}

TEST(HeapBuckets, TheRecordingsBucketsAddUpToItsEvents) {
    EventsReader reader;
    const events_test::EventsFileBuilder recording = report_test::churn_recording(100000);
    ASSERT_EQ(reader.open_bytes(recording.span()).error(), "");
    ReportEventsInput input;
    input.clock.origin = reader.start_time();
    input.clock.end = reader.end_time();
    input.clock.seconds_per_cycle = reader.seconds_per_cycle();
    input.expected_events = reader.trailer_event_count();
    input.bounds = {1000, 500};
    const ReportEvents out = report_events(reader, input);
    ASSERT_TRUE(out.events["thinned"]);
    const auto& whole = out.buckets["levels"].back();
    const auto& finest = out.buckets["levels"][0];
    EXPECT_EQ(whole["calls"][0].get<uint64_t>() + whole["frees"][0].get<uint64_t>(), 100000u);
    uint64_t calls = 0, frees = 0;
    int64_t high = 0;
    for (size_t i = 0; i < finest["calls"].size(); ++i) {
        calls += finest["calls"][i].get<uint64_t>();
        frees += finest["frees"][i].get<uint64_t>();
        high = std::max(high, finest["high"][i].get<int64_t>());
    }
    EXPECT_EQ(calls, whole["calls"][0]);
    EXPECT_EQ(frees, whole["frees"][0]);
    EXPECT_EQ(high, whole["high"][0]);
    EXPECT_EQ(high, out.threads[0]["peak"]);  // one thread holds the whole heap
    EXPECT_EQ(whole["bytes"][0], out.threads[0]["bytes"]);
}

}  // namespace
}  // namespace memusagestat
