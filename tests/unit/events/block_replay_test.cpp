// SPDX-License-Identifier: MIT
// The block replay: lives from allocation to free, resizes that keep a block's birth, leaks
// at the end, the heap as it goes, and what a damaged recording's stray frees do.
#include "read/block_replay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
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
    EventsReader no_recording;  // these events are no recording's: none is read again
    std::vector<BlockLife> lives;
    void add(const RecordedEvent& event) {
        replay.add(event, [&](const BlockLife& life) { lives.push_back(life); });
    }
    void finish(uint64_t end) {
        replay.finish(no_recording, end, [&](const BlockLife& life) { lives.push_back(life); });
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
    // 24 bytes an entry and an index of 4-byte slots filled to between 3/8 and 3/4.
    EXPECT_LE(r.replay.memory_bytes(), kBlocks * 34);
}

// The lives a replay should report, from an ordered map of whole blocks.
struct Model {
    std::map<uint64_t, BlockLife> alive;
    std::vector<BlockLife> lives;
    uint64_t unknown = 0;
    void end(uint64_t address, uint64_t when, bool resized) {
        BlockLife life = alive.at(address);
        life.end = when;
        life.freed = true;
        life.resized_away = resized;
        lives.push_back(life);
        alive.erase(address);
    }
    void add(const RecordedEvent& e) {
        BlockLife next{e.address, e.size, e.site, e.thread, e.time, e.time, 0, false, false};
        if (e.kind == Kind::release) {
            if (alive.count(e.address) == 0)
                ++unknown;
            else
                end(e.address, e.time, false);
            return;
        }
        if (e.kind == Kind::resize) {
            if (alive.count(e.old_address) == 0) {
                if (e.site == 0) ++unknown;
            } else {
                const BlockLife before = alive.at(e.old_address);
                next.site = before.site;
                next.thread = before.thread;
                next.born = before.born;
                end(e.old_address, e.time, true);
            }
        }
        if (alive.count(e.address) != 0) {
            ++unknown;
            end(e.address, e.time, false);
        }
        alive[e.address] = next;
    }
    void finish(uint64_t end_time) {
        std::vector<BlockLife> left;
        for (const auto& [address, life] : alive) left.push_back(life);
        std::stable_sort(left.begin(), left.end(),
                         [](const BlockLife& a, const BlockLife& b) { return a.start < b.start; });
        for (BlockLife life : left) {
            life.end = std::max(end_time, life.start);
            lives.push_back(life);
        }
        alive.clear();
    }
};

bool same(const BlockLife& a, const BlockLife& b) {
    return a.address == b.address && a.size == b.size && a.site == b.site && a.thread == b.thread &&
           a.born == b.born && a.start == b.start && a.end == b.end && a.freed == b.freed &&
           a.resized_away == b.resized_away;
}

TEST(BlockReplay, AgreesWithAMapOfWholeBlocksThroughRandomEventsAndOddValues) {
    // Few addresses (many collisions, growth and shrinking), address 0, sizes of 4 GiB and
    // more, thread serials past 16 bits, times far apart and going back: every kind of
    // block the compact entries hold apart must come back whole.
    std::mt19937_64 random(11);
    Replayed r;
    Model model;
    uint64_t time = uint64_t{1} << 50;
    const auto address = [&] {
        return random() % 997 == 0 ? 0 : 0x5555'0000'0000 + 16 * (random() % 3000);
    };
    const auto size = [&] {
        return random() % 50 == 0 ? (uint64_t{1} << 32) + random() % 9 : random() % 4096;
    };
    for (int step = 0; step < 300000; ++step) {
        const uint64_t roll = random() % 1000;
        time = roll == 0   ? time + (uint64_t{1} << 49)
               : roll == 1 ? time - 1000
                           : time + random() % 100;
        const uint32_t thread = random() % 100 == 0 ? 0x10000 + random() % 5 : 1 + random() % 4;
        RecordedEvent event;
        const uint64_t kind = random() % 10;
        if (kind < 5)
            event = RecordedEvent{
                Kind::allocate, time, address(), 0, size(), static_cast<uint32_t>(random() % 40),
                thread};
        else if (kind < 8)
            event = RecordedEvent{Kind::release, time, address(), 0, 0, 0, thread};
        else
            event = RecordedEvent{Kind::resize, time,   address(),
                                  address(),    size(), static_cast<uint32_t>(random() % 3),
                                  thread};
        r.add(event);
        model.add(event);
        ASSERT_EQ(r.replay.blocks_alive(), model.alive.size()) << "step " << step;
    }
    r.finish(time + 10);
    model.finish(time + 10);
    EXPECT_EQ(r.replay.unknown_blocks(), model.unknown);
    ASSERT_EQ(r.lives.size(), model.lives.size());
    for (size_t i = 0; i < r.lives.size(); ++i)
        ASSERT_TRUE(same(r.lives[i], model.lives[i])) << "life " << i;
    EXPECT_EQ(r.replay.heap(), 0);
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
