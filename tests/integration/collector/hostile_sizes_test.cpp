// SPDX-License-Identifier: MIT
// Sizes whose header arithmetic overflows must fail cleanly and be counted as failed
// (glibc's collector returns small blocks); malloc_usable_size must tell the truth (glibc's
// collector returns garbage).
#include <gtest/gtest.h>

#include <sstream>

#include "collector_run.h"

namespace collector_test {
namespace {

std::string fixture_path() { return fixture("collector_fixture_hostile_sizes"); }

TEST(HostileSizes, OverflowingSizesFailWithEnomemAndCountAsFailed) {
    Outcome outcome = run({fixture_path(), "overflow"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(outcome.out,
              "malloc null=1 errno=12\n"
              "calloc null=1 errno=12\n"
              "realloc null=1 errno=12\n");
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("malloc").calls, 1u);
    EXPECT_EQ(s.row("malloc").failed, 1u);
    EXPECT_EQ(s.row("calloc").calls, 1u);
    EXPECT_EQ(s.row("calloc").failed, 1u);
    EXPECT_EQ(s.row("realloc").calls, 1u);
    EXPECT_EQ(s.row("realloc").failed, 1u);
    EXPECT_EQ(s.heap_peak, 0u) << "a failed call must not add to the heap";
}

TEST(HostileSizes, ReallocarrayOverflowFailsWithEnomemAndCountsAsFailed) {
    Outcome outcome = run({fixture_path(), "reallocarray"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(outcome.out, "reallocarray null=1 errno=12\n");
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("realloc").failed, 1u);
    EXPECT_EQ(s.row("malloc").calls, 1u);
    EXPECT_EQ(s.row("free").calls, 1u);
    EXPECT_EQ(s.row("free").bytes, 64u) << "the block survived the failed call unchanged";
    EXPECT_EQ(s.heap_peak, 64u);
}

// glibc's posix_memalign leaves errno at ENOMEM besides returning it (glibc's
// tst-malloc-thread-fail relies on that), and leaves the pointer alone.
TEST(HostileSizes, PosixMemalignWithoutTheMemoryReturnsAndLeavesEnomem) {
    const std::string expected =
        "overflow result=12 errno=12 untouched=1\n"
        "refused result=12 errno=12 untouched=1\n";
    Outcome bare = run({fixture_path(), "posix_memalign"}, {}, "");
    ASSERT_TRUE(bare.exited_zero()) << bare.err;
    ASSERT_EQ(bare.out, expected) << "glibc itself behaves otherwise";
    Outcome outcome = run({fixture_path(), "posix_memalign"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(outcome.out, expected);
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("aligned").calls, 2u);
    EXPECT_EQ(s.row("aligned").failed, 2u);
    EXPECT_EQ(s.heap_peak, 0u);
}

TEST(HostileSizes, MallocUsableSizeIsSaneOnPlainAndAlignedBlocks) {
    Outcome outcome = run({fixture_path(), "usable"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::istringstream lines(outcome.out);
    std::string name, field;
    int seen = 0;
    while (lines >> name >> field) {
        ++seen;
        ASSERT_EQ(field.rfind("usable=", 0), 0u) << field;
        unsigned long long usable = std::stoull(field.substr(7));
        EXPECT_GE(usable, 100u) << name;
        EXPECT_LT(usable, 100u + 64u) << name;
    }
    EXPECT_EQ(seen, 3) << outcome.out;
}

}  // namespace
}  // namespace collector_test
