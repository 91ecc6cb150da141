// SPDX-License-Identifier: MIT
// A second allocator preloaded beside ours, whose malloc returns aligned_alloc blocks
// (glibc's tst-aligned-alloc-random-thread): it works in either order. Its calls back
// into us are not counted and get no header; blocks we did not hand out pass through
// free, even where one of ours lay before.
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

const std::string kChained = fixture("collector_fixture_chained_allocator.so");

Outcome run_chained(const std::string& preload, const std::string& mode) {
    return run({fixture("collector_fixture_chained_user"), mode}, {"MEMUSAGE_COLOR=never"},
               preload);
}

uint64_t calls_made(const Outcome& outcome) { return std::stoull(outcome.out); }

TEST(ChainedAllocator, AfterOursEveryMallocIsCountedOnceAndFreed) {
    Outcome outcome = run_chained(kOurCollector + " " + kChained, "single");
    ASSERT_TRUE(outcome.exited_zero()) << outcome.status << "\n" << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("malloc").calls, calls_made(outcome));
    EXPECT_EQ(s.row("free").calls, calls_made(outcome));
    EXPECT_EQ(s.row("free").bytes, s.row("malloc").bytes);
    EXPECT_FALSE(s.has_row("aligned")) << "its aligned_alloc calls are ours, nested";
}

TEST(ChainedAllocator, BeforeOursItsAlignedBlocksAreCountedAndTheRestPassThrough) {
    Outcome outcome = run_chained(kChained + " " + kOurCollector, "single");
    ASSERT_TRUE(outcome.exited_zero()) << outcome.status << "\n" << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("malloc").calls, 0u);
    EXPECT_EQ(s.row("aligned").calls, (calls_made(outcome) + 2) / 3);  // every third call
    EXPECT_EQ(s.row("free").calls, s.row("aligned").calls);
    EXPECT_EQ(s.row("free").bytes, s.row("aligned").bytes);
}

TEST(ChainedAllocator, ThreadsWorkInEitherOrder) {
    for (const std::string& preload :
         {kOurCollector + " " + kChained, kChained + " " + kOurCollector}) {
        Outcome outcome = run_chained(preload, "threads");
        ASSERT_TRUE(outcome.exited_zero()) << preload << ": " << outcome.status << "\n"
                                           << outcome.err;
        EXPECT_EQ(count_summaries(outcome.err), 1) << preload;
    }
}

}  // namespace
}  // namespace collector_test
