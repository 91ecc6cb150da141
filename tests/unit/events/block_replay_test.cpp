// The block replay: lives from allocation to free, resizes that keep a block's birth, leaks
// at the end, the heap as it goes, and what a damaged recording's stray frees do.
#include "read/block_replay.h"

#include <gtest/gtest.h>

#include <vector>

namespace memusagestat {
namespace {

using Kind = RecordedEvent::Kind;

RecordedEvent allocate(uint64_t time, uint64_t address, uint64_t size, uint32_t site,
                       uint32_t thread = 1) {
    return RecordedEvent{Kind::allocate, time, address, 0, size, site, thread};
}
RecordedEvent release(uint64_t time, uint64_t address) {
    return RecordedEvent{Kind::release, time, address, 0, 0, 0, 1};
}
RecordedEvent resize(uint64_t time, uint64_t from, uint64_t to, uint64_t size) {
    return RecordedEvent{Kind::resize, time, to, from, size, 0, 2};
}

struct Replayed {
    BlockReplay replay;
    std::vector<BlockLife> lives;
    void add(const RecordedEvent& event) {
        replay.add(event, [&](const BlockLife& life) { lives.push_back(life); });
    }
    void finish(uint64_t end) {
        replay.finish(end, [&](const BlockLife& life) { lives.push_back(life); });
    }
};

TEST(BlockReplay, AFreedBlockLivesFromItsAllocationToItsFree) {
    Replayed r;
    r.add(allocate(10, 0x1000, 64, 5, 3));
    EXPECT_EQ(r.replay.heap(), 64);
    r.add(release(30, 0x1000));
    ASSERT_EQ(r.lives.size(), 1u);
    const BlockLife& life = r.lives[0];
    EXPECT_EQ(life.address, 0x1000u);
    EXPECT_EQ(life.size, 64u);
    EXPECT_EQ(life.site, 5u);
    EXPECT_EQ(life.thread, 3u);
    EXPECT_EQ(life.born, 10u);
    EXPECT_EQ(life.start, 10u);
    EXPECT_EQ(life.end, 30u);
    EXPECT_TRUE(life.freed);
    EXPECT_FALSE(life.resized_away);
    EXPECT_EQ(r.replay.heap(), 0);
    EXPECT_EQ(r.replay.blocks_alive(), 0u);
}

TEST(BlockReplay, HoldsALiveBlockInAboutThirtyTwoBytes) {
    // A large run keeps millions of blocks live at once: the table is what the replay costs.
    Replayed r;
    constexpr uint64_t kBlocks = 1000000;
    for (uint64_t i = 0; i < kBlocks; ++i) r.add(allocate(i, 0x10000 + 48 * i, 32, 7));
    EXPECT_EQ(r.replay.blocks_alive(), kBlocks);
    // Filled to between 3/8 and 3/4 of a table of 32-byte slots.
    EXPECT_LE(r.replay.memory_bytes(), kBlocks * 32 * 8 / 3);
}

TEST(BlockReplay, SizesAndBirthsBeyondThirtyTwoBitsComeBackWhole) {
    Replayed r;
    const uint64_t huge = uint64_t{5} << 32, late = uint64_t{9} << 32;
    r.add(allocate(10, 0x1000, huge, 5, 3));
    r.add(allocate(11, 0x2000, 64, 6, 3));
    r.add(resize(late, 0x2000, 0x3000, huge + 1));  // resized long after its birth
    r.add(allocate(12, 0, 16, 8));                  // address 0, as a damaged file may give
    EXPECT_EQ(r.replay.heap(), static_cast<int64_t>(2 * huge + 1 + 16));
    r.add(release(late + 1, 0x1000));
    r.add(release(late + 2, 0));
    r.finish(late + 5);
    ASSERT_EQ(r.lives.size(), 4u);
    EXPECT_EQ(r.lives[1].size, huge);
    EXPECT_EQ(r.lives[1].born, 10u);
    EXPECT_EQ(r.lives[2].size, 16u);
    EXPECT_EQ(r.lives[2].site, 8u);
    EXPECT_EQ(r.lives[3].address, 0x3000u);
    EXPECT_EQ(r.lives[3].size, huge + 1);
    EXPECT_EQ(r.lives[3].born, 11u);
    EXPECT_EQ(r.lives[3].start, late);
    EXPECT_EQ(r.lives[3].site, 6u);
    EXPECT_FALSE(r.lives[3].freed);
    EXPECT_EQ(r.replay.heap(), 0);
}

TEST(BlockReplay, AResizeEndsOneLifeAndGoesOnAtTheNewPlaceWithTheSameBirthAndSite) {
    Replayed r;
    r.add(allocate(10, 0x1000, 64, 5));
    r.add(resize(20, 0x1000, 0x8000, 4096));
    EXPECT_EQ(r.replay.heap(), 4096);
    r.add(resize(25, 0x8000, 0x8000, 100));
    r.add(release(40, 0x8000));
    ASSERT_EQ(r.lives.size(), 3u);
    EXPECT_TRUE(r.lives[0].resized_away);
    EXPECT_EQ(r.lives[0].end, 20u);
    EXPECT_EQ(r.lives[1].address, 0x8000u);
    EXPECT_EQ(r.lives[1].size, 4096u);
    EXPECT_EQ(r.lives[1].start, 20u);
    EXPECT_EQ(r.lives[1].end, 25u);
    EXPECT_EQ(r.lives[2].size, 100u);
    for (const BlockLife& life : r.lives) {
        EXPECT_EQ(life.born, 10u);
        EXPECT_EQ(life.site, 5u);
    }
    EXPECT_TRUE(r.lives[2].freed);
    EXPECT_FALSE(r.lives[2].resized_away);
    EXPECT_EQ(r.replay.heap(), 0);
}

TEST(BlockReplay, BlocksNeverFreedEndAtTheEndUnfreedInTheOrderTheyBegan) {
    Replayed r;
    r.add(allocate(12, 0x3000, 1, 1));
    r.add(allocate(11, 0x9000, 2, 2));
    r.add(allocate(13, 0x1000, 3, 3));
    r.add(release(14, 0x9000));
    r.finish(100);
    ASSERT_EQ(r.lives.size(), 3u);
    EXPECT_EQ(r.lives[1].address, 0x3000u);
    EXPECT_EQ(r.lives[2].address, 0x1000u);
    for (size_t i = 1; i < 3; ++i) {
        EXPECT_FALSE(r.lives[i].freed);
        EXPECT_EQ(r.lives[i].end, 100u);
    }
    EXPECT_EQ(r.replay.heap(), 0);
    EXPECT_EQ(r.replay.blocks_alive(), 0u);
}

TEST(BlockReplay, StrayFreesAndResizesAreCountedNotTrusted) {
    Replayed r;
    r.add(release(5, 0x1000));
    r.add(resize(6, 0x2000, 0x3000, 50));
    EXPECT_EQ(r.replay.unknown_blocks(), 2u);
    EXPECT_TRUE(r.lives.empty());
    EXPECT_EQ(r.replay.heap(), 50) << "the resized block exists from then on";
    r.add(allocate(7, 0x3000, 10, 0));  // handed out twice: the first one must have ended
    EXPECT_EQ(r.replay.unknown_blocks(), 3u);
    ASSERT_EQ(r.lives.size(), 1u);
    EXPECT_EQ(r.replay.heap(), 10);
}

}  // namespace
}  // namespace memusagestat
