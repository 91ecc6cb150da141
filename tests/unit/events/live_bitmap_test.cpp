// SPDX-License-Identifier: MIT
// The described blocks' live-address bitmap: bits set and cleared once each, far apart
// addresses in pages of their own, and its memory about the span of the addresses used.
#include "read/live_bitmap.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace memusagestat {
namespace {

TEST(LiveBitmap, SetsAndClearsEachAddressOnce) {
    LiveBitmap bits;
    EXPECT_FALSE(bits.clear(0x1000));
    EXPECT_TRUE(bits.set(0x1000));
    EXPECT_FALSE(bits.set(0x1000));
    EXPECT_TRUE(bits.set(0x1010)) << "the next 16 bytes are another bit";
    EXPECT_TRUE(bits.set(0x7fff'0000'0000)) << "far away, in a page of its own";
    EXPECT_TRUE(bits.set(0));
    EXPECT_TRUE(bits.clear(0x1000));
    EXPECT_FALSE(bits.clear(0x1000));
    EXPECT_TRUE(bits.clear(0x1010));
    EXPECT_TRUE(bits.clear(0x7fff'0000'0000));
    EXPECT_TRUE(bits.clear(0));
}

TEST(LiveBitmap, AgreesWithASetAndTakesAboutTheSpanOver128) {
    LiveBitmap bits;
    std::set<uint64_t> model;
    std::mt19937_64 random(7);
    const uint64_t base = 0x5555'0000'0000, span = uint64_t{64} << 20;
    for (int i = 0; i < 200000; ++i) {
        const uint64_t address = base + (random() % (span / 16)) * 16;
        if (random() % 2 == 0)
            ASSERT_EQ(bits.set(address), model.insert(address).second);
        else
            ASSERT_EQ(bits.clear(address), model.erase(address) == 1);
    }
    EXPECT_LE(bits.memory_bytes(), span / 128 + (size_t{64} << 10));
    bits.reset();
    EXPECT_FALSE(bits.clear(*model.begin()));
}

}  // namespace
}  // namespace memusagestat
