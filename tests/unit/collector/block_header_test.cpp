// SPDX-License-Identifier: MIT
// Described blocks' headers (heap/block.h, record/block_description.h): found again with
// their description and real start, plain and aligned, and their freed mark leading a second
// free back to the real block.
#include <gtest/gtest.h>

#include <cstdlib>

#include "heap/block.h"

namespace memusage {
namespace {

// A real block with room below it, as the real allocator's blocks have their own header.
struct Real {
    void* whole = std::aligned_alloc(4096, 8192);
    void* block = static_cast<char*>(whole) + 4096;
    ~Real() { std::free(whole); }
};

TEST(DescribedHeader, APlainBlockComesBackWithItsDescription) {
    Real real;
    void* user = mark_described(real.block, 100, 7);
    EXPECT_EQ(static_cast<char*>(user) - static_cast<char*>(real.block), 48);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(user) % 16, 0u);
    BlockDescription& description = *description_of(reinterpret_cast<uintptr_t>(user));
    description =
        BlockDescription{.start = 20, .born = 10, .site_slot = description.site_slot, .owner = 3};
    OurBlock found{};
    ASSERT_TRUE(find_block(user, found));
    EXPECT_EQ(found.real, real.block);
    EXPECT_FALSE(found.aligned);
    EXPECT_EQ(found.size, 100u);
    EXPECT_EQ(found.site, 7u);
    EXPECT_TRUE(found.ended.described);
    EXPECT_EQ(found.ended.size, 100u);
    EXPECT_EQ(found.ended.born, 10u);
    EXPECT_EQ(found.ended.start, 20u);
    EXPECT_EQ(found.ended.owner, 3u);
    mark_freed(user, found);
    EXPECT_FALSE(find_block(user, found));
    EXPECT_EQ(freed_real_block(user), real.block) << "a second free reaches the real block";
}

TEST(DescribedHeader, AnAlignedBlockKeepsItsRealStartBelowItsDescription) {
    Real real;
    void* user = mark_aligned_described(real.block, kDescribedAlignedLeast, 50, 9);
    description_of(reinterpret_cast<uintptr_t>(user))->owner = 2;
    OurBlock found{};
    ASSERT_TRUE(find_block(user, found));
    EXPECT_EQ(found.real, real.block);
    EXPECT_TRUE(found.aligned);
    EXPECT_EQ(found.site, 9u);
    EXPECT_TRUE(found.ended.described);
    EXPECT_EQ(found.ended.owner, 2u);
    mark_freed(user, found);
    EXPECT_EQ(freed_real_block(user), real.block);
}

TEST(DescribedHeader, SitedAndPlainBlocksAreNotDescribed) {
    Real real;
    OurBlock found{};
    ASSERT_TRUE(find_block(mark_sited(real.block, 10, 4), found));
    EXPECT_FALSE(found.ended.described);
    ASSERT_TRUE(find_block(mark_plain(real.block, 10), found));
    EXPECT_FALSE(found.ended.described);
}

}  // namespace
}  // namespace memusage
