// SPDX-License-Identifier: MIT
#include "html/thread_heaps.h"

#include <gtest/gtest.h>

using memusagestat::ThreadHeaps;

TEST(ThreadHeaps, ABlockIsHeldByItsAllocatingThreadWhoeverFreesIt) {
    ThreadHeaps heaps(10.0);
    heaps.allocated(1, 1, 1000, 1000, 1.0);
    heaps.allocated(2, 2, 300, 300, 2.0);
    heaps.ended(1, 1000, 3.0);  // thread 2 frees thread 1's block
    heaps.freed_by(2);
    heaps.allocated(2, 1, 1500, 500, 4.0);  // thread 2 grows a block of thread 1's by 500
    nlohmann::json one, two;
    heaps.describe(1, one);
    heaps.describe(2, two);
    EXPECT_EQ(one["allocations"], 1);
    EXPECT_EQ(one["frees"], 0);
    EXPECT_EQ(one["peak"], 1500);
    EXPECT_EQ(two["allocations"], 2);
    EXPECT_EQ(two["bytes"], 800);  // a resize counts its growth, as the text summary
    EXPECT_EQ(two["frees"], 1);
    EXPECT_EQ(two["peak"], 300);
    EXPECT_EQ(one["series"]["heap"].back(), 1500);
}

TEST(ThreadHeaps, TheCurveKeepsEveryBucketsExtremesAndStaysBounded) {
    ThreadHeaps heaps(1.0);
    int64_t highest = 0;
    for (int i = 0; i < 100000; ++i) {
        const double time = i / 100000.0;
        const uint64_t size = static_cast<uint64_t>(i % 977) + 1;
        heaps.allocated(1, 1, size, size, time);
        if (i == 54321) heaps.allocated(1, 1, 5000000, 5000000, time);  // a spike, freed at once
        if (i == 54321) heaps.ended(1, 5000000, time);
        heaps.ended(1, size, time);
    }
    nlohmann::json one;
    heaps.describe(1, one);
    const auto& heap = one["series"]["heap"];
    EXPECT_LE(heap.size(), 3u * ThreadHeaps::kBuckets + 1);
    for (const auto& value : heap) highest = std::max<int64_t>(highest, value.get<int64_t>());
    EXPECT_EQ(highest, one["peak"].get<int64_t>());
    EXPECT_GE(highest, 5000000);
}

TEST(ThreadHeaps, AThreadThatMadeNoCallIsNotDescribed) {
    ThreadHeaps heaps(1.0);
    nlohmann::json thread = {{"serial", 7}};
    heaps.describe(7, thread);
    EXPECT_FALSE(thread.contains("peak"));
}
