// SPDX-License-Identifier: MIT
#include "sites/stack_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

namespace memusage {
namespace {

using Stack = std::vector<uintptr_t>;

// A table that gives its pages back when the test ends.
struct Table : StackTable {
    Table(uint32_t stacks, uint64_t frames) { ready_ = init(stacks, frames); }
    ~Table() { release(); }
    uint32_t intern(const Stack& stack) {
        return StackTable::intern(stack.data(), static_cast<uint32_t>(stack.size()));
    }
    Stack frames(uint32_t id) const {
        uint32_t depth = 0;
        const uintptr_t* frames = frames_of(id, depth);
        return frames == nullptr ? Stack() : Stack(frames, frames + depth);
    }
    bool ready_ = false;
};

// Many distinct stacks that share most of their frames, as real ones do.
std::vector<Stack> some_stacks(size_t count) {
    std::vector<Stack> stacks;
    for (size_t i = 0; i < count; ++i) {
        Stack stack = {0x401000 + i * 16, 0x402000 + (i % 7) * 8, 0x7f0000001234};
        stack.resize(3 + i % 20, 0x7f00000099aa);
        stacks.push_back(stack);
    }
    return stacks;
}

TEST(StackTable, TheSameStackGetsTheSameIdAndKeepsItsFrames) {
    Table table(1024, 1 << 16);
    ASSERT_TRUE(table.ready_);
    std::vector<Stack> stacks = some_stacks(300);
    std::vector<uint32_t> ids;
    for (const Stack& stack : stacks) ids.push_back(table.intern(stack));
    for (size_t i = 0; i < stacks.size(); ++i) {
        EXPECT_GE(ids[i], StackTable::kFirstId);
        EXPECT_EQ(table.intern(stacks[i]), ids[i]) << i;
        EXPECT_EQ(table.frames(ids[i]), stacks[i]) << i;
    }
    std::vector<uint32_t> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end()) << "distinct stacks, ids";
    EXPECT_FALSE(table.overflowed());
}

TEST(StackTable, AnEmptyStackIsAStackToo) {
    Table table(16, 64);
    uint32_t empty = table.intern(Stack());
    EXPECT_GE(empty, StackTable::kFirstId);
    EXPECT_EQ(table.intern(Stack()), empty);
    EXPECT_NE(table.intern(Stack{1}), empty);
    EXPECT_EQ(table.frames(empty), Stack());
}

TEST(StackTable, AFullTableGivesTheTableFullSiteAndKeepsTheOldIds) {
    Table table(4, 1 << 10);  // ids 2 and 3 only
    uint32_t a = table.intern(Stack{1, 2});
    uint32_t b = table.intern(Stack{3, 4});
    EXPECT_EQ(table.intern(Stack{5, 6}), StackTable::kTableFull);
    EXPECT_TRUE(table.overflowed());
    EXPECT_EQ(table.intern(Stack{1, 2}), a);
    EXPECT_EQ(table.intern(Stack{3, 4}), b);

    Table few_frames(64, 10);
    EXPECT_GE(few_frames.intern(Stack(8, 7)), StackTable::kFirstId);
    EXPECT_EQ(few_frames.intern(Stack(8, 9)), StackTable::kTableFull) << "no room for the frames";
    EXPECT_GE(few_frames.intern(Stack{1, 2}), StackTable::kFirstId) << "what still fits, fits";
}

// Threads intern the same stacks in different orders: each id they get must stand for
// the stack they asked for, and different stacks never share an id.
TEST(StackTableThreads, ConcurrentInternsAgreeWithTheirFrames) {
    constexpr int kThreads = 4;
    Table table(1 << 14, 1 << 20);
    ASSERT_TRUE(table.ready_);
    const std::vector<Stack> stacks = some_stacks(2000);
    std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(stacks.size()));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            std::vector<size_t> order(stacks.size());
            for (size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::shuffle(order.begin(), order.end(), std::mt19937(t));
            for (int round = 0; round < 3; ++round)
                for (size_t i : order) ids[t][i] = table.intern(stacks[i]);
        });
    for (auto& thread : threads) thread.join();
    std::vector<int> owner(table.id_limit(), -1);
    for (int t = 0; t < kThreads; ++t)
        for (size_t i = 0; i < stacks.size(); ++i) {
            uint32_t id = ids[t][i];
            ASSERT_GE(id, StackTable::kFirstId);
            ASSERT_EQ(table.frames(id), stacks[i]) << "thread " << t << " stack " << i;
            if (owner[id] == -1) owner[id] = static_cast<int>(i);
            ASSERT_EQ(owner[id], static_cast<int>(i)) << "one id, two stacks";
        }
}

}  // namespace
}  // namespace memusage
