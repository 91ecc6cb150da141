// SPDX-License-Identifier: MIT
// Aligned allocations, which glibc's collector does not see: every aligned function gives
// an aligned, writable, freeable, realloc-able block and is counted in the aligned row.
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

Outcome run_aligned(const std::string& mode) {
    return run({fixture("collector_fixture_aligned"), mode});
}

class AlignedFunction : public ::testing::TestWithParam<std::string> {};

TEST_P(AlignedFunction, BlockIsAlignedReallocableFreeableAndCounted) {
    Outcome outcome = run_aligned(GetParam());
    ASSERT_TRUE(outcome.exited_zero()) << "fixture check " << outcome.status / 256 << " failed\n"
                                       << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("aligned").calls, 1u);
    EXPECT_EQ(s.row("aligned").failed, 0u);
    if (GetParam() == "pvalloc") {
        // pvalloc rounds the request up to a page; either figure is a fair count.
        EXPECT_TRUE(s.row("aligned").bytes == 100u || s.row("aligned").bytes == 4096u)
            << s.row("aligned").bytes;
    } else {
        EXPECT_EQ(s.row("aligned").bytes, 100u);
    }
    EXPECT_EQ(s.row("realloc").calls, 1u);
    EXPECT_EQ(s.row("realloc").failed, 0u);
    EXPECT_EQ(s.row("free").calls, 1u);
    EXPECT_EQ(s.row("free").bytes, 5000u) << "free must know the grown block's size";
    EXPECT_EQ(s.heap_peak, 5000u);
}

INSTANTIATE_TEST_SUITE_P(Collector, AlignedFunction,
                         ::testing::Values("posix_memalign", "aligned_alloc", "memalign", "valloc",
                                           "pvalloc"));

TEST(Aligned, CppAlignedNewIsCountedAndDeleted) {
    Outcome outcome = run({fixture("collector_fixture_aligned_new")});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("aligned").calls, 1u);
    EXPECT_EQ(s.row("aligned").bytes, 192u);
    EXPECT_GE(s.row("free").bytes, 192u);
}

TEST(Aligned, PosixMemalignRejectsBadAlignmentWithoutTouchingThePointer) {
    Outcome outcome = run_aligned("einval");
    EXPECT_TRUE(outcome.exited_zero()) << "fixture check " << outcome.status / 256 << " failed\n"
                                       << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.heap_peak, 0u);
}

TEST(Aligned, RowComesAfterCallocAndBeforeFree) {
    Outcome outcome = run_aligned("memalign");
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    size_t calloc_row = outcome.err.find("calloc|");
    size_t aligned_row = outcome.err.find("aligned|");
    size_t free_row = outcome.err.find("free|");
    ASSERT_NE(aligned_row, std::string::npos) << outcome.err;
    EXPECT_LT(calloc_row, aligned_row);
    EXPECT_LT(aligned_row, free_row);
}

TEST(Aligned, ProgramWithoutAlignedCallsHasNoAlignedRow) {
    Outcome outcome = run({fixture("collector_fixture_calls")}, {"MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 1);
    EXPECT_EQ(outcome.err.find("aligned|"), std::string::npos) << outcome.err;
}

}  // namespace
}  // namespace collector_test
