// SPDX-License-Identifier: MIT
#include "heap/mapping_set.h"

#include <gtest/gtest.h>

namespace memusage {
namespace {

constexpr uintptr_t kPage = 4096;

TEST(MappingSet, RemovesOnlyWhatWasAdded) {
    MappingSet set;
    EXPECT_EQ(set.add(10 * kPage, 4 * kPage, true), 0u);
    EXPECT_EQ(set.remove(100 * kPage, kPage).accessible, 0u);       // never traced
    EXPECT_EQ(set.remove(8 * kPage, 3 * kPage).accessible, kPage);  // overlaps the first page only
    EXPECT_EQ(set.remove(10 * kPage, 10 * kPage).accessible, 3 * kPage);
    EXPECT_EQ(set.remove(10 * kPage, 10 * kPage).accessible, 0u);
    EXPECT_EQ(set.range_count(), 0u);
}

TEST(MappingSet, UnmappingTheMiddleSplitsARange) {
    MappingSet set;
    set.add(0, 10 * kPage, true);
    EXPECT_EQ(set.remove(3 * kPage, 2 * kPage).accessible, 2 * kPage);
    EXPECT_EQ(set.range_count(), 2u);
    EXPECT_EQ(set.remove(0, 10 * kPage).accessible, 8 * kPage);
}

TEST(MappingSet, AFixedMapReplacesWhatWasThere) {
    MappingSet set;
    set.add(0, 4 * kPage, true);
    set.add(8 * kPage, 4 * kPage, true);
    EXPECT_EQ(set.add(2 * kPage, 8 * kPage, true), 4 * kPage);  // two pages of each neighbour
    EXPECT_EQ(set.remove(0, 100 * kPage).accessible, 12 * kPage);
}

TEST(MappingSet, ManyRangesGrowTheTable) {
    MappingSet set;
    for (uintptr_t i = 0; i < 1000; ++i) set.add((2 * i + 1) * kPage, kPage, true);
    EXPECT_EQ(set.range_count(), 1000u);
    EXPECT_EQ(set.remove(0, 2001 * kPage).accessible, 1000 * kPage);
}

TEST(MappingSet, LengthsRunningPastTheAddressSpaceAreClamped) {
    MappingSet set;
    set.add(UINTPTR_MAX - kPage, 10 * kPage, true);
    EXPECT_EQ(set.remove(UINTPTR_MAX - kPage, 10 * kPage).accessible, kPage);
}

// Reserve with PROT_NONE, then commit and decommit parts: what the JVM and Go do.
TEST(MappingSet, ReservedSpaceCountsOnlyWhereCommitted) {
    MappingSet set;
    EXPECT_EQ(set.add(0, 1024 * kPage, false), 0u);
    EXPECT_EQ(set.protect(0, 16 * kPage, true), int64_t{16 * kPage});
    EXPECT_EQ(set.protect(16 * kPage, 16 * kPage, true), int64_t{16 * kPage});
    EXPECT_EQ(set.protect(0, 4 * kPage, true), 0);  // already accessible
    EXPECT_EQ(set.protect(8 * kPage, 16 * kPage, false), -int64_t{16 * kPage});
    MappingSet::Removed reserved = set.remove(512 * kPage, 512 * kPage);
    EXPECT_EQ(reserved.traced, 512 * kPage);
    EXPECT_EQ(reserved.accessible, 0u);
    MappingSet::Removed rest = set.remove(0, 512 * kPage);
    EXPECT_EQ(rest.traced, 512 * kPage);
    EXPECT_EQ(rest.accessible, 16 * kPage);  // pages 0-7 and 24-31
    EXPECT_EQ(set.range_count(), 0u);
}

TEST(MappingSet, ProtectingUntracedMemoryChangesNothing) {
    MappingSet set;
    set.add(10 * kPage, 2 * kPage, true);
    EXPECT_EQ(set.protect(0, 10 * kPage, false), 0);
    EXPECT_EQ(set.protect(12 * kPage, 10 * kPage, false), 0);
    EXPECT_EQ(set.protect(8 * kPage, 8 * kPage, false), -int64_t{2 * kPage});
    EXPECT_EQ(set.protect(8 * kPage, 8 * kPage, true), int64_t{2 * kPage});
}

TEST(MappingSet, AFixedMapOverReservedSpaceReplacesNothingCounted) {
    MappingSet set;
    set.add(0, 16 * kPage, false);
    EXPECT_EQ(set.add(4 * kPage, 4 * kPage, true), 0u);
    EXPECT_EQ(set.add(6 * kPage, 4 * kPage, false), 2 * kPage);
    EXPECT_EQ(set.remove(0, 16 * kPage).accessible, 2 * kPage);
}

TEST(MappingSet, CommittingPageByPageKeepsTheTableSmall) {
    MappingSet set;
    set.add(0, 4096 * kPage, false);
    for (uintptr_t page = 0; page < 4096; ++page)
        EXPECT_EQ(set.protect(page * kPage, kPage, true), int64_t{kPage});
    EXPECT_EQ(set.range_count(), 1u);
    for (uintptr_t page = 0; page < 4096; page += 2) set.protect(page * kPage, kPage, false);
    EXPECT_EQ(set.range_count(), 4096u);
    EXPECT_EQ(set.remove(0, 4096 * kPage).accessible, 2048 * kPage);
}

}  // namespace
}  // namespace memusage
