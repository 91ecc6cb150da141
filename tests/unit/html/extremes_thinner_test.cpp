// SPDX-License-Identifier: MIT
#include "html/extremes_thinner.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace memusagestat {
namespace {

TEST(ExtremesThinner, BelowTheBoundKeepsEveryItem) {
    std::vector<int> kept;
    ExtremesThinner<int, 1> thinner(100, 100, kept);
    for (int i = 0; i < 100; ++i) thinner.add(i, {i});
    thinner.finish();
    EXPECT_FALSE(thinner.thinning());
    EXPECT_EQ(kept.size(), 100u);
}

TEST(ExtremesThinner, KeepsEveryExtremeWithinTheBoundInOrder) {
    const int items = 1000000;
    std::vector<int> kept;
    ExtremesThinner<int, 1> thinner(items, 4000, kept);
    // A saw tooth with one spike up and one down, each a single item.
    auto value = [](int i) -> int64_t {
        if (i == 777777) return 1000000;
        if (i == 123457) return -1000000;
        return i % 1000;
    };
    for (int i = 0; i < items; ++i) thinner.add(i, {value(i)});
    thinner.finish();
    EXPECT_TRUE(thinner.thinning());
    EXPECT_LE(kept.size(), 4000u);
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    EXPECT_TRUE(std::adjacent_find(kept.begin(), kept.end()) == kept.end());
    EXPECT_NE(std::find(kept.begin(), kept.end(), 777777), kept.end());
    EXPECT_NE(std::find(kept.begin(), kept.end(), 123457), kept.end());
    EXPECT_EQ(kept.back(), items - 1);  // the last bucket's last item
    // Every bucket's own maximum of the saw tooth (999) is kept.
    EXPECT_GE(std::count_if(kept.begin(), kept.end(), [](int i) { return i % 1000 == 999; }), 600);
}

TEST(ExtremesThinner, MoreItemsThanExpectedGoToTheLastBucket) {
    std::vector<int> kept;
    ExtremesThinner<int, 1> thinner(10, 4, kept);
    for (int i = 0; i < 50; ++i) thinner.add(i, {i == 40 ? 100 : 0});
    thinner.finish();
    EXPECT_NE(std::find(kept.begin(), kept.end(), 40), kept.end());
    EXPECT_LE(kept.size(), 8u);
}

TEST(ExtremesThinner, CutsTheStreamWhereThePositionsProductSays) {
    // Level items: each bucket keeps its first and last, the buckets being
    // min(buckets - 1, position * buckets / expected), with more items than expected.
    const uint64_t expected = 1000003, buckets = 997, items = expected + 5000;
    std::vector<uint64_t> kept;
    ExtremesThinner<uint64_t, 1> thinner(expected, buckets * 4, kept);
    for (uint64_t i = 0; i < items; ++i) thinner.add(i, {0});
    thinner.finish();
    std::vector<uint64_t> want;
    uint64_t bucket = UINT64_MAX;
    for (uint64_t i = 0; i < items; ++i) {
        const uint64_t at = std::min(buckets - 1, i * buckets / expected);
        if (at != bucket && i > 0 && want.back() != i - 1) want.push_back(i - 1);  // the last
        if (at != bucket) want.push_back(i);                                       // the first
        bucket = at;
    }
    if (want.back() != items - 1) want.push_back(items - 1);
    EXPECT_EQ(kept, want);
}

}  // namespace
}  // namespace memusagestat
