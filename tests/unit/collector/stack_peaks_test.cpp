// SPDX-License-Identifier: MIT
// The stack peaks' slots (sites/stack_peaks.h) taken by many threads at once, without a
// lock: each thread keeps its own, and once all are taken an ended thread's smaller peak
// gives way. Under the tsan preset this checks the hand-over of slots between threads.
#include "sites/stack_peaks.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "platform/stacks.h"

namespace memusage {
namespace {

constexpr uint32_t kThreads = stack_peaks::kSlots + 64;

// Thread i's peak: i KiB deeper than 4 KiB, so every thread's is distinct and the later
// threads' are deeper than any before.
uint64_t depth_of(uint32_t i) { return 4096 + uint64_t{i} * 1024; }

TEST(StackPeaks, ThreadsKeepTheirSlotsAndEndedThreadsSmallerPeaksGiveWay) {
    ASSERT_TRUE(stack_peaks::start());
    constexpr uint32_t kAtOnce = 8;
    for (uint32_t first = 0; first < kThreads; first += kAtOnce) {
        std::vector<std::thread> batch;
        for (uint32_t i = first; i < first + kAtOnce && i < kThreads; ++i) {
            batch.emplace_back([i] {
                uintptr_t sp = 0x7f0000000000 + uint64_t{i} * 0x100000;
                // Two captures of the thread's own, then one within the margin, not taken.
                stack_peaks::capture(depth_of(i) / 2, sp, false, nullptr);
                stack_peaks::capture(depth_of(i), sp, false, nullptr);
                stack_peaks::capture(depth_of(i) + 100, sp, false, nullptr);
                stack_peaks::end_thread();
            });
        }
        for (std::thread& thread : batch) thread.join();
    }
    std::set<uint64_t> kept;
    const stack_peaks::Slot* slots = stack_peaks::slots();
    for (uint32_t i = 0; i < stack_peaks::kSlots; ++i)
        if (slots[i].record.bytes != 0) kept.insert(slots[i].record.bytes);
    EXPECT_EQ(kept.size(), stack_peaks::kSlots) << "every slot holds one thread's peak";
    EXPECT_TRUE(stack_peaks::dropped());
    // The deepest threads' peaks are all kept: each later thread found a smaller one ended.
    for (uint32_t i = kThreads - 16; i < kThreads; ++i)
        EXPECT_TRUE(kept.count(depth_of(i))) << "thread " << i;
    EXPECT_FALSE(kept.count(depth_of(0))) << "the shallowest gave way";
    EXPECT_FALSE(kept.count(depth_of(0) + 100)) << "a depth within the margin is not taken";
}

// A stack pointer off the thread's own stack: on its alternate signal stack, measured from
// that stack's top; elsewhere (a coroutine's stack), not measured.
TEST(StackPeaks, OnlyTheThreadsOwnStackAndItsSignalStackAreMeasured) {
    StackRange own{0x7ff000000000, 0x7ff000800000};
    EXPECT_TRUE(own.holds(0x7ff000400000));
    EXPECT_FALSE(own.holds(0x7ff000800000));
    EXPECT_FALSE(own.holds(0x600000));
    EXPECT_TRUE(StackRange{}.holds(0x600000)) << "unknown: every address is the thread's";

    std::vector<char> alternate(64 * 1024);
    stack_t stack = {};
    stack.ss_sp = alternate.data();
    stack.ss_size = alternate.size();
    stack_t previous;
    ASSERT_EQ(sigaltstack(&stack, &previous), 0);
    uint64_t depth = 0;
    uintptr_t top = 0;
    auto inside = reinterpret_cast<uintptr_t>(alternate.data()) + 1000;
    EXPECT_TRUE(signal_stack_depth(inside, depth, top));
    EXPECT_EQ(top, reinterpret_cast<uintptr_t>(alternate.data()) + alternate.size());
    EXPECT_EQ(depth, alternate.size() - 1000);
    EXPECT_FALSE(signal_stack_depth(reinterpret_cast<uintptr_t>(&depth), depth, top));
    sigaltstack(&previous, nullptr);
}

}  // namespace
}  // namespace memusage
