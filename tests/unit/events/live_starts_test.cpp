// SPDX-License-Identifier: MIT
// LiveStarts: the live described blocks counted by when they were made, which stretches of
// time can still hold a live block's creation, once its stretches merge and once it has
// seen an end it cannot place.
#include "read/live_starts.h"

#include <gtest/gtest.h>

namespace memusagestat {
namespace {

TEST(LiveStarts, SaysWhichTimesHoldALiveBlocksCreation) {
    LiveStarts starts;
    EXPECT_FALSE(starts.any_between(0, UINT64_MAX)) << "nothing made yet";
    const uint64_t base = 1'000'000'000;
    starts.made(base);
    starts.made(base + 10'000'000);
    starts.made(base + 10'000'000);
    EXPECT_TRUE(starts.any_between(base, base));
    EXPECT_TRUE(starts.any_between(base + 9'000'000, base + 11'000'000));
    EXPECT_FALSE(starts.any_between(base + 1'000'000, base + 9'000'000));
    EXPECT_TRUE(starts.any_between(0, base)) << "before the first: its stretch";
    starts.ended(base);
    EXPECT_FALSE(starts.any_between(0, base + 9'000'000));
    starts.ended(base + 10'000'000);
    EXPECT_TRUE(starts.any_between(base + 10'000'000, base + 10'000'000)) << "one of two left";
    starts.ended(base + 10'000'000);
    EXPECT_FALSE(starts.any_between(0, UINT64_MAX));
    EXPECT_TRUE(starts.known());
}

TEST(LiveStarts, KeepsItsCountsWhenItsStretchesMerge) {
    LiveStarts starts;
    // Far apart: many more stretches of the first width than it keeps.
    const uint64_t base = 5000, far = base + (uint64_t{1} << 40);
    starts.made(base);
    starts.made(far);
    starts.made(far + (uint64_t{1} << 30));
    // 65,536 counts at most, twice that with the growth of their vector.
    EXPECT_LE(starts.memory_bytes(), (size_t{1} << 17) * sizeof(uint32_t));
    EXPECT_TRUE(starts.any_between(far, far));
    EXPECT_FALSE(starts.any_between(base + (uint64_t{1} << 39), base + (uint64_t{1} << 39)));
    starts.ended(far);
    starts.ended(far + (uint64_t{1} << 30));
    EXPECT_FALSE(starts.any_between(base + (uint64_t{1} << 30), UINT64_MAX));
    EXPECT_TRUE(starts.any_between(base, base));
    EXPECT_TRUE(starts.known());
}

TEST(LiveStarts, AnEndItNeverSawMadeMakesEveryTimeACandidate) {
    LiveStarts starts;
    starts.made(1'000'000);
    starts.ended(900'000'000);  // no block made then
    EXPECT_FALSE(starts.known());
    EXPECT_TRUE(starts.any_between(500'000'000, 600'000'000));
    starts.reset();
    EXPECT_TRUE(starts.known());
    EXPECT_FALSE(starts.any_between(0, UINT64_MAX));
}

}  // namespace
}  // namespace memusagestat
