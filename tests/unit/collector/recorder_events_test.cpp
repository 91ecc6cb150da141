// SPDX-License-Identifier: MIT
// The recorder feeding the event recording (MEMUSAGE_EVENTS) from several threads: every
// block event once, in the stream's order, read back with memusagestat's reader. Threaded,
// so that the ThreadSanitizer preset checks the merge and direct recording with it on.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "read/block_replay.h"
#include "read/events_reader.h"
#include "record/recorder.h"
#include "test_files.h"

namespace memusage {
namespace {

using memusagestat::RecordedEvent;
using Kind = RecordedEvent::Kind;

struct Replayed {
    std::vector<RecordedEvent> events;
    uint64_t unknown_blocks = 0;
    int64_t lowest_heap = 0, highest_heap = 0, final_heap = 0;
    bool complete = false;
};

Replayed read_back(const char* path) {
    Replayed out;
    memusagestat::EventsReader reader;
    EXPECT_EQ(reader.open(path).error(), "");
    memusagestat::BlockReplay replay;
    for (RecordedEvent event; reader.next(event);) {
        out.events.push_back(event);
        replay.add(event, [](const memusagestat::BlockLife&) {});
        out.lowest_heap = std::min(out.lowest_heap, replay.heap());
        out.highest_heap = std::max(out.highest_heap, replay.heap());
    }
    EXPECT_EQ(reader.problem(), "");
    out.complete = reader.complete();
    out.unknown_blocks = replay.unknown_blocks();
    out.final_heap = replay.heap();
    return out;
}

BlockChange made(uint64_t address, uint64_t size) { return BlockChange{address, 0, size}; }
BlockChange freed(uint64_t address) { return BlockChange{0, address, 0}; }

// Blocks until `turn` reaches `value`, asleep rather than yielding the core in a loop.
void wait_until(std::atomic<int>& turn, int value) {
    for (int seen; (seen = turn.load(std::memory_order_acquire)) != value;)
        turn.wait(seen, std::memory_order_acquire);
}

// A block allocated by one thread is freed by another: the release is never recorded
// ahead of its allocation.
TEST(RecorderEvents, AHandedOverBlockIsRecordedFreedAfterItIsMade) {
    // Each round hands the block over and back: two wake-ups of a sleeping thread, which
    // on a loaded machine wait for a core (3,000 rounds took two minutes there). 500
    // rounds still fill the 3-event buffer more than 300 times.
    constexpr int kRounds = 500;
    for (uint32_t buffer : {3u, 32768u}) {
        ScratchFile scratch;
        EventsFile file;
        ASSERT_EQ(file.open(scratch.path(), 0), OpenResult::opened);
        Recorder recorder;
        ASSERT_TRUE(recorder.init(nullptr, buffer));
        recorder.record_events(&file);
        std::atomic<int> handed{0}, taken{0};
        std::thread producer([&] {
            ThreadLog* log = recorder.attach_thread();
            for (int i = 1; i <= kRounds; ++i) {
                recorder.record_with_block(*log, 100, 0, 0, made(0x10000 + 16 * uint64_t(i), 100));
                handed.store(i, std::memory_order_release);
                handed.notify_one();
                wait_until(taken, i);
            }
            recorder.detach_thread(log);
        });
        std::thread consumer([&] {
            ThreadLog* log = recorder.attach_thread();
            for (int i = 1; i <= kRounds; ++i) {
                wait_until(handed, i);
                recorder.record_with_block(*log, -100, 0, 0, freed(0x10000 + 16 * uint64_t(i)));
                taken.store(i, std::memory_order_release);
                taken.notify_one();
            }
            recorder.detach_thread(log);
        });
        producer.join();
        consumer.join();
        Stats totals = {};
        recorder.finish(totals, cycle_counter());

        Replayed replayed = read_back(scratch.path());
        EXPECT_TRUE(replayed.complete);
        ASSERT_EQ(replayed.events.size(), 2u * kRounds) << "buffer " << buffer;
        EXPECT_EQ(replayed.unknown_blocks, 0u);
        for (size_t i = 0; i < replayed.events.size(); ++i)
            ASSERT_EQ(replayed.events[i].kind, i % 2 == 0 ? Kind::allocate : Kind::release) << i;
        EXPECT_EQ(replayed.highest_heap, 100);
        EXPECT_EQ(uint64_t(replayed.highest_heap), totals.heap_peak);
    }
}

// The first thread records directly; a second one arriving ends that while the first
// keeps going. Every event is in the recording once, each thread's in its own order.
TEST(RecorderEvents, ASecondThreadEndsDirectRecordingWithoutLosingAnEvent) {
    constexpr int kPairs = 100000;
    for (uint32_t buffer : {5u, 32768u}) {
        ScratchFile scratch;
        EventsFile file;
        ASSERT_EQ(file.open(scratch.path(), 0), OpenResult::opened);
        Recorder recorder;
        ASSERT_TRUE(recorder.init(nullptr, buffer));
        recorder.record_events(&file);
        ThreadLog* first = recorder.attach_thread();
        std::atomic<bool> second_arrived{false};
        std::thread second([&] {
            while (!second_arrived.load()) std::this_thread::yield();
            ThreadLog* log = recorder.attach_thread();
            for (int i = 0; i < kPairs / 10; ++i) {
                recorder.record_with_block(*log, 1000, 0, 0, made(0x2000, 1000));
                recorder.record_with_block(*log, -1000, 0, 0, freed(0x2000));
            }
            recorder.detach_thread(log);
        });
        for (int i = 0; i < kPairs; ++i) {
            if (i == kPairs / 4) second_arrived.store(true);
            recorder.record_with_block(*first, 16, 8, 0, made(0x1000, 16));
            recorder.record_with_block(*first, -16, 8, 0, freed(0x1000));
        }
        second.join();
        Stats totals = {};
        recorder.finish(totals, cycle_counter());

        Replayed replayed = read_back(scratch.path());
        EXPECT_TRUE(replayed.complete);
        ASSERT_EQ(replayed.events.size(), 2u * (kPairs + kPairs / 10)) << "buffer " << buffer;
        EXPECT_EQ(replayed.unknown_blocks, 0u);
        EXPECT_EQ(replayed.lowest_heap, 0);
        EXPECT_EQ(replayed.final_heap, 0);
        EXPECT_EQ(uint64_t(replayed.highest_heap), totals.heap_peak);
        for (const RecordedEvent& event : replayed.events)
            ASSERT_EQ(event.thread, event.address == 0x1000 ? 1u : 2u);
    }
}

}  // namespace
}  // namespace memusage
