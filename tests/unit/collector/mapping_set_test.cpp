#include "mapping_set.h"

#include <gtest/gtest.h>

namespace memusage {
namespace {

constexpr uintptr_t kPage = 4096;

TEST(MappingSet, RemovesOnlyWhatWasAdded) {
    MappingSet set;
    EXPECT_EQ(set.add(10 * kPage, 4 * kPage), 0u);
    EXPECT_EQ(set.remove(100 * kPage, kPage), 0u);       // never traced
    EXPECT_EQ(set.remove(8 * kPage, 3 * kPage), kPage);  // overlaps the first page only
    EXPECT_EQ(set.remove(10 * kPage, 10 * kPage), 3 * kPage);
    EXPECT_EQ(set.remove(10 * kPage, 10 * kPage), 0u);
    EXPECT_EQ(set.range_count(), 0u);
}

TEST(MappingSet, UnmappingTheMiddleSplitsARange) {
    MappingSet set;
    set.add(0, 10 * kPage);
    EXPECT_EQ(set.remove(3 * kPage, 2 * kPage), 2 * kPage);
    EXPECT_EQ(set.range_count(), 2u);
    EXPECT_EQ(set.remove(0, 10 * kPage), 8 * kPage);
}

TEST(MappingSet, AFixedMapReplacesWhatWasThere) {
    MappingSet set;
    set.add(0, 4 * kPage);
    set.add(8 * kPage, 4 * kPage);
    EXPECT_EQ(set.add(2 * kPage, 8 * kPage), 4 * kPage);  // two pages of each neighbour
    EXPECT_EQ(set.remove(0, 100 * kPage), 12 * kPage);
}

TEST(MappingSet, ManyRangesGrowTheTable) {
    MappingSet set;
    for (uintptr_t i = 0; i < 1000; ++i) set.add((2 * i + 1) * kPage, kPage);
    EXPECT_EQ(set.range_count(), 1000u);
    EXPECT_EQ(set.remove(0, 2001 * kPage), 1000 * kPage);
}

TEST(MappingSet, LengthsRunningPastTheAddressSpaceAreClamped) {
    MappingSet set;
    set.add(UINTPTR_MAX - kPage, 10 * kPage);
    EXPECT_EQ(set.remove(UINTPTR_MAX - kPage, 10 * kPage), kPage);
}

}  // namespace
}  // namespace memusage
