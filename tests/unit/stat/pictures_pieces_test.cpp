// SPDX-License-Identifier: MIT
// The block map's pieces: the accumulation buffer's sums, the address folding's layout.
#include <gtest/gtest.h>

#include "draw/picture_style.h"
#include "pictures/address_folding.h"
#include "pictures/coverage_buffer.h"

namespace memusagestat {
namespace {

TEST(CoverageBuffer, AWholePixelBlockWeighsOneWholePixelInItsColour) {
    CoverageBuffer buffer(10, 10);
    buffer.add(2, 5, 3, 4, {200, 100, 50}, false);
    buffer.finish();
    for (unsigned x = 2; x < 5; ++x) {
        const auto& p = buffer.pixel(x, 3);
        EXPECT_EQ(p.weight, CoverageBuffer::kWhole);
        EXPECT_EQ(p.touched, 1u);
        EXPECT_EQ(p.r / (p.weight + p.touched), 200u);
        EXPECT_EQ(p.leaked, 0u);
    }
    EXPECT_EQ(buffer.pixel(5, 3).touched, 0u);
    EXPECT_EQ(buffer.pixel(2, 4).touched, 0u);
    EXPECT_EQ(buffer.pixel(1, 3).touched, 0u);
}

TEST(CoverageBuffer, AThousandThinBlocksInOnePixelAllCountAndNeverOverflow) {
    CoverageBuffer buffer(4, 4);
    // Each a thousandth of the pixel, one after the other in time: together the pixel.
    for (int i = 0; i < 1000; ++i)
        buffer.add(1 + i / 1000.0, 1 + (i + 1) / 1000.0, 2, 3, {10, 20, 30}, i == 999);
    buffer.finish();
    const auto& p = buffer.pixel(1, 2);
    EXPECT_EQ(p.touched, 1000u);
    EXPECT_EQ(p.leaked, 1u);
    EXPECT_LE(p.weight, CoverageBuffer::kWhole);
    EXPECT_EQ(p.g / (p.weight + p.touched), 20u);
    EXPECT_EQ(buffer.pixel(0, 2).touched, 0u);
    EXPECT_EQ(buffer.pixel(2, 2).touched, 0u);
}

TEST(CoverageBuffer, BlocksOutsideOrDegenerateAreClippedNotDropped) {
    CoverageBuffer buffer(4, 4);
    buffer.add(-5, 100, -1, 0.1, {1, 1, 1}, false);    // over the top, across everything
    buffer.add(3.5, 3.5, 3.9, 3.9, {1, 1, 1}, false);  // no extent at all
    buffer.finish();
    for (unsigned x = 0; x < 4; ++x) EXPECT_EQ(buffer.pixel(x, 0).touched, 1u);
    EXPECT_EQ(buffer.pixel(3, 3).touched, 1u);
}

TEST(AddressFolding, DistantRegionsShareTheHeightAndTheGapIsFolded) {
    AddressFolding folding;
    folding.add(0x1000, 0x1000);
    folding.add(0x1800, 0x100);
    folding.add(uint64_t{1} << 47, 0x1000);  // 2^47 bytes away
    folding.lay_out(100, 10);
    ASSERT_EQ(folding.regions().size(), 2u);
    EXPECT_EQ(folding.regions()[0].low, 0x1000u);
    EXPECT_EQ(folding.regions()[0].high, 0x2000u);
    EXPECT_DOUBLE_EQ(folding.regions()[0].rows, 45);
    EXPECT_DOUBLE_EQ(folding.regions()[1].bottom, 55);
    EXPECT_DOUBLE_EQ(folding.height_of(0x1800), 22.5);
    EXPECT_DOUBLE_EQ(folding.height_of((uint64_t{1} << 47) + 0x1000), 100);
}

TEST(AddressFolding, ManyRegionsKeepOnlyTheLargestGapsFolded) {
    AddressFolding folding;
    for (uint64_t i = 0; i < 100; ++i) folding.add(i << 30, 4096);  // every GiB
    folding.add(uint64_t{1} << 46, 4096);
    folding.add(UINT64_MAX - 10, 100);  // wraps past the end: clamped
    folding.lay_out(600, 9);
    EXPECT_EQ(folding.regions().size(), AddressFolding::kMaxRegions);
    double top = 0;
    for (const auto& region : folding.regions()) top = region.bottom + region.rows;
    EXPECT_NEAR(top, 600, 1e-6);
}

TEST(PictureStyle, BytesAndCountsForPeople) {
    EXPECT_EQ(bytes_text(1), "1 byte");
    EXPECT_EQ(bytes_text(1023), "1023 bytes");
    EXPECT_EQ(bytes_text(1536), "1.5 KiB");
    EXPECT_EQ(bytes_text(uint64_t{300} << 20), "300 MiB");
    EXPECT_EQ(count_text(1234567), "1,234,567");
    EXPECT_EQ(count_text(999), "999");
}

}  // namespace
}  // namespace memusagestat
