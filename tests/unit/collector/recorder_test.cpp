// SPDX-License-Identifier: MIT
#include "record/recorder.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "test_files.h"

namespace memusage {
namespace {

struct Change {
    int64_t heap;
    uint64_t stack;
};

std::vector<Record> events_of(const std::vector<Record>& records) {
    return std::vector<Record>(records.begin() + kHeaderRecords, records.end());
}

void expect_time_order(const std::vector<Record>& records) {
    for (size_t i = kHeaderRecords + 1; i < records.size(); ++i)
        ASSERT_LE(records[i - 1].time(), records[i].time()) << "record " << i;
    if (records.size() > kHeaderRecords) {
        EXPECT_LE(records[0].time(), records[kHeaderRecords].time());
        EXPECT_LE(records.back().time(), records[1].time());
    }
}

// A recorder writing its records into a fresh scratch file.
struct RecorderOnScratch {
    explicit RecorderOnScratch(uint32_t buffer_records) {
        ready = file.open(scratch.path(), 1) == OpenResult::opened &&
                recorder.init(&file, buffer_records);
    }

    ScratchFile scratch;
    DataFile file;
    Recorder recorder;
    bool ready = false;  // the file opened and the recorder set up
};

std::vector<Record> record_one_thread(const std::vector<Change>& changes, uint32_t buffer_records,
                                      Stats& totals) {
    RecorderOnScratch on(buffer_records);
    EXPECT_TRUE(on.ready);
    ThreadLog* log = on.recorder.attach_thread();
    for (const Change& c : changes) on.recorder.record(*log, c.heap, c.stack);
    on.recorder.finish(totals, UINT64_MAX / 2);
    return on.scratch.records();
}

TEST(Recorder, OneThreadsRecordsReplayItsChanges) {
    Stats totals = {};
    auto records =
        record_one_thread({{100, 10}, {200, 50}, {-100, 20}, {50, 0}, {-250, 5}}, 32768, totals);
    ASSERT_EQ(records.size(), 7u);
    uint64_t heaps[] = {100, 300, 200, 250, 0};
    uint64_t stacks[] = {10, 50, 20, 0, 5};
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(records[i + 2].heap, heaps[i]);
        EXPECT_EQ(records[i + 2].stack, stacks[i]);
    }
    EXPECT_EQ(records[0].heap, 0u);
    EXPECT_EQ(records[0].stack, 350u);  // heap + stack at its largest
    EXPECT_EQ(records[1].heap, 300u);
    EXPECT_EQ(records[1].stack, 50u);
    EXPECT_EQ(totals.heap_peak, 300u);
    EXPECT_EQ(totals.stack_peak, 50u);
    EXPECT_EQ(totals.total_peak, 350u);
    expect_time_order(records);
}

TEST(Recorder, EveryBufferSizeWritesTheSameRecords) {
    std::vector<Change> changes;
    for (int i = 0; i < 5000; ++i)
        changes.push_back({i % 3 == 2 ? -7 : 11, static_cast<uint64_t>(i % 97)});
    Stats totals = {};
    auto reference = events_of(record_one_thread(changes, 32768, totals));
    ASSERT_EQ(reference.size(), changes.size());
    for (uint32_t buffer : {1u, 5u, 1024u, 1025u}) {
        Stats t = {};
        auto events = events_of(record_one_thread(changes, buffer, t));
        ASSERT_EQ(events.size(), reference.size()) << "buffer " << buffer;
        for (size_t i = 0; i < events.size(); ++i) {
            ASSERT_EQ(events[i].heap, reference[i].heap) << "buffer " << buffer << " record " << i;
            ASSERT_EQ(events[i].stack, reference[i].stack);
        }
        EXPECT_EQ(t.heap_peak, totals.heap_peak);
    }
}

TEST(Recorder, WithoutAFileThePeaksStillCome) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    ThreadLog* log = recorder.attach_thread();
    for (int i = 0; i < 3000; ++i) recorder.record(*log, 64, 8);
    for (int i = 0; i < 3000; ++i) recorder.record(*log, -64, 16);
    Stats totals = {};
    recorder.finish(totals, 1);
    EXPECT_EQ(totals.heap_peak, 3000u * 64);
    EXPECT_EQ(totals.stack_peak, 16u);
    EXPECT_EQ(totals.total_peak, 3000u * 64 + 8);
}

TEST(Recorder, CountersOfThreadsThatLeftAreKept) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    ThreadLog* first = recorder.attach_thread();
    first->stats.calls_of(Call::malloc) = 5;
    recorder.record(*first, 100, 0);
    recorder.detach_thread(first);
    ThreadLog* second = recorder.attach_thread();
    EXPECT_EQ(second, first);  // the log is reused, and starts clean
    EXPECT_EQ(second->stats.calls_of(Call::malloc), 0u);
    second->stats.calls_of(Call::malloc) = 2;
    recorder.record(*second, -100, 0);
    Stats totals = {};
    recorder.finish(totals, 1);
    EXPECT_EQ(totals.calls_of(Call::malloc), 7u);
    EXPECT_EQ(totals.heap_peak, 100u);
}

TEST(Recorder, SignalsRecordWithoutWaitingAndLoseNothingWhenTheLockIsFree) {
    RecorderOnScratch on(1);  // every event fills the log
    ASSERT_TRUE(on.ready);
    Recorder& recorder = on.recorder;
    ThreadLog* log = recorder.attach_thread();
    recorder.record(*log, 10, 1);
    recorder.record_from_signal(*log, cycle_counter(), 2);
    recorder.record(*log, 5, 3);
    Stats totals = {};
    recorder.finish(totals, UINT64_MAX / 2);
    auto events = events_of(on.scratch.records());
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[1].heap, 10u);
    EXPECT_EQ(events[1].stack, 2u);
    EXPECT_EQ(events[2].heap, 15u);
}

// Threads record concurrently into their own logs; the file must hold every event
// once, in time order, with the heap rebuilt from all of them.
TEST(RecorderThreads, EveryEventOnceInTimeOrder) {
    constexpr int kThreads = 4, kPairs = 20000;
    for (uint32_t buffer : {7u, 32768u}) {
        RecorderOnScratch on(buffer);
        ASSERT_TRUE(on.ready);
        Recorder& recorder = on.recorder;
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&recorder, t] {
                ThreadLog* log = recorder.attach_thread();
                for (int i = 0; i < kPairs; ++i) {
                    log->stats.calls_of(Call::malloc)++;
                    recorder.record(*log, 16 * (t + 1), 0);
                    recorder.record(*log, -16 * (t + 1), 0);
                }
                recorder.detach_thread(log);
            });
        for (auto& thread : threads) thread.join();
        Stats totals = {};
        recorder.finish(totals, cycle_counter());
        auto records = on.scratch.records();
        ASSERT_EQ(records.size(), kHeaderRecords + 2u * kThreads * kPairs) << "buffer " << buffer;
        expect_time_order(records);
        EXPECT_EQ(records.back().heap, 0u);
        EXPECT_EQ(totals.calls_of(Call::malloc), uint64_t{kThreads} * kPairs);
        EXPECT_LE(totals.heap_peak, 16u * (1 + 2 + 3 + 4));
        EXPECT_GE(totals.heap_peak, 16u * 4);
    }
}

// The first thread records straight into the stream; a second one arriving takes
// that right away while the first keeps recording. Nothing may be lost or doubled
// at the hand-over, and the stream must stay in time order with the heap exact.
TEST(RecorderThreads, ASecondThreadEndsDirectRecordingWithoutLosingAnEvent) {
    constexpr int kPairs = 200000;
    for (uint32_t buffer : {5u, 32768u}) {
        RecorderOnScratch on(buffer);
        ASSERT_TRUE(on.ready);
        Recorder& recorder = on.recorder;
        ThreadLog* first = recorder.attach_thread();
        EXPECT_TRUE(first->records_directly.load()) << "a thread alone records directly";
        std::atomic<bool> second_arrived{false};
        std::thread second([&] {
            while (!second_arrived.load()) std::this_thread::yield();
            ThreadLog* log = recorder.attach_thread();
            for (int i = 0; i < kPairs / 10; ++i) {
                recorder.record(*log, 1000, 0);
                recorder.record(*log, -1000, 0);
            }
            recorder.detach_thread(log);
        });
        for (int i = 0; i < kPairs; ++i) {
            if (i == kPairs / 4) second_arrived.store(true);
            recorder.record(*first, 16, 8);
            recorder.record(*first, -16, 8);
        }
        second.join();
        Stats totals = {};
        recorder.finish(totals, cycle_counter());
        auto records = on.scratch.records();
        ASSERT_EQ(records.size(), kHeaderRecords + 2u * (kPairs + kPairs / 10))
            << "buffer " << buffer;
        expect_time_order(records);
        for (const Record& r : events_of(records)) ASSERT_LE(r.heap, 1016u);
        EXPECT_EQ(records.back().heap, 0u);
        EXPECT_EQ(totals.heap_peak, records[1].heap);
        EXPECT_GE(totals.heap_peak, 1000u);
    }
}

// Two threads taking turns, as threads sharing one core do: the one whose turn it is
// records directly once its log fills and the other is quiet, and the other takes that
// away before its first event. Every event once, in order, the heap exact at each one.
TEST(RecorderThreads, ThreadsTakingTurnsRecordDirectlyInTheirTurn) {
    constexpr int kTurns = 12;
    constexpr uint32_t kBurst = 4 * Recorder::kMaxLogCapacity;
    for (uint32_t buffer : {5u, 32768u}) {
        RecorderOnScratch on(buffer);
        ASSERT_TRUE(on.ready);
        Recorder& recorder = on.recorder;
        std::atomic<int> attached{0}, turn{0};
        int direct_turns[2] = {0, 0};
        auto take_turns = [&](int me) {
            ThreadLog* log = recorder.attach_thread();
            attached.fetch_add(1);
            while (attached.load() != 2) std::this_thread::yield();
            for (int t = me; t < kTurns; t += 2) {
                while (turn.load(std::memory_order_acquire) != t) std::this_thread::yield();
                for (uint32_t i = 0; i < kBurst; ++i) recorder.record(*log, 1, 0);
                if (log->records_directly.load()) ++direct_turns[me];
                for (uint32_t i = 0; i < kBurst; ++i) recorder.record(*log, -1, 0);
                turn.store(t + 1, std::memory_order_release);
            }
            recorder.detach_thread(log);
        };
        std::thread first(take_turns, 0), second(take_turns, 1);
        first.join();
        second.join();
        Stats totals = {};
        recorder.finish(totals, cycle_counter());
        auto records = on.scratch.records();
        ASSERT_EQ(records.size(), kHeaderRecords + 2u * kTurns * kBurst) << "buffer " << buffer;
        expect_time_order(records);
        auto events = events_of(records);
        for (size_t i = 0; i < events.size(); ++i) {
            size_t in_turn = i % (2 * kBurst);
            uint64_t heap = in_turn < kBurst ? in_turn + 1 : 2 * kBurst - in_turn - 1;
            ASSERT_EQ(events[i].heap, heap) << "event " << i << ", buffer " << buffer;
        }
        EXPECT_EQ(totals.heap_peak, kBurst);
        // Each thread's first turn at least (later ones may wait: turns this short make
        // a thread try less often).
        EXPECT_GE(direct_turns[0], 1) << "buffer " << buffer;
        EXPECT_GE(direct_turns[1], 1) << "buffer " << buffer;
    }
}

TEST(RecorderThreads, AThreadAloneAgainGoesBackToDirectRecording) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    ThreadLog* first = recorder.attach_thread();
    std::thread([&] {
        ThreadLog* log = recorder.attach_thread();
        recorder.record(*log, 100, 0);
        recorder.detach_thread(log);
    }).join();
    EXPECT_FALSE(first->records_directly.load());
    for (uint32_t i = 0; i < Recorder::kMaxLogCapacity; ++i) recorder.record(*first, 1, 0);
    EXPECT_TRUE(first->records_directly.load()) << "its full log merged, it is alone";
    recorder.record(*first, 1, 0);
    Stats totals = {};
    recorder.finish(totals, 1);
    EXPECT_EQ(totals.heap_peak, 100u + Recorder::kMaxLogCapacity + 1);
}

// A block allocated in one thread and freed in another: the free must never be
// merged ahead of the allocation, or the heap would dip and the peak be lost.
void hand_over(DataFile* file, uint32_t buffer, Stats& totals) {
    constexpr int kRounds = 3000;
    Recorder recorder;
    ASSERT_TRUE(recorder.init(file, buffer));
    std::atomic<int> handed{0}, taken{0};
    std::thread producer([&] {
        ThreadLog* log = recorder.attach_thread();
        for (int i = 1; i <= kRounds; ++i) {
            recorder.record(*log, 100, 0);
            handed.store(i, std::memory_order_release);
            while (taken.load(std::memory_order_acquire) != i) std::this_thread::yield();
        }
        recorder.detach_thread(log);
    });
    std::thread consumer([&] {
        ThreadLog* log = recorder.attach_thread();
        for (int i = 1; i <= kRounds; ++i) {
            while (handed.load(std::memory_order_acquire) != i) std::this_thread::yield();
            recorder.record(*log, -100, 0);
            taken.store(i, std::memory_order_release);
        }
        recorder.detach_thread(log);
    });
    producer.join();
    consumer.join();
    recorder.finish(totals, cycle_counter());
}

TEST(RecorderThreads, AHandedOverBlockIsFreedAfterItIsAllocated) {
    for (uint32_t buffer : {3u, 32768u}) {
        ScratchFile scratch;
        DataFile file;
        ASSERT_EQ(file.open(scratch.path(), 1), OpenResult::opened);
        Stats totals = {};
        hand_over(&file, buffer, totals);
        auto events = events_of(scratch.records());
        ASSERT_EQ(events.size(), 6000u);
        for (size_t i = 0; i < events.size(); ++i)
            ASSERT_EQ(events[i].heap, i % 2 == 0 ? 100u : 0u) << i;
        EXPECT_EQ(totals.heap_peak, 100u);
    }
}

TEST(RecorderThreads, WithoutAFileTheHandOverPeakIsExact) {
    Stats totals = {};
    hand_over(nullptr, 32768, totals);
    EXPECT_EQ(totals.heap_peak, 100u);
}

// A thread keeps counting after its thread-specific destructor (glibc's
// teardown frees memory then), and its log is taken back once the thread is gone.
// A thread just joined is still known to the kernel for a moment, while its stack, with
// the counting slot in its thread-local memory, may already be unmapped: the exit's wait
// for calls in progress must not read the slot by a load that faults.
TEST(RecorderThreads, TheExitWaitSurvivesASlotWhoseMemoryIsGone) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    ThreadLog* main_log = recorder.attach_thread();
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* memory = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(memory, MAP_FAILED);
    auto* slot = static_cast<ThreadLog**>(memory);
    std::atomic<bool> attached{false}, released{false};
    std::thread alive([&] {
        *slot = recorder.attach_thread(slot);
        attached = true;
        while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (!attached) std::this_thread::yield();
    ASSERT_EQ(munmap(memory, page), 0);
    Stats totals = {};
    EXPECT_TRUE(recorder.finish(totals, 1, main_log));
    released = true;
    alive.join();
}

TEST(RecorderThreads, AnEndedThreadsLogCountsItsLastCallsAndIsTakenBackOnceItIsGone) {
    RecorderOnScratch on(32768);
    ASSERT_TRUE(on.ready);
    Recorder& recorder = on.recorder;
    ThreadLog* main_log = recorder.attach_thread();
    ThreadLog* ended = nullptr;
    pid_t tid = 0;
    std::thread([&] {
        tid = static_cast<pid_t>(syscall(SYS_gettid));
        ended = recorder.attach_thread();
        ended->stats.calls_of(Call::malloc) = 1;
        recorder.record(*ended, 100, 0);
        recorder.end_thread(ended);
        ended->stats.calls_of(Call::free) = 1;  // after the destructor, as glibc's teardown
        recorder.record(*ended, -100, 0);
    }).join();
    // Joined is not yet gone for the kernel: wait until it is.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (syscall(SYS_tgkill, getpid(), tid, 0) == 0 &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ThreadLog* next = nullptr;
    std::thread([&] {
        next = recorder.attach_thread();
        recorder.record(*next, 7, 0);
        recorder.detach_thread(next);
    }).join();
    EXPECT_EQ(next, ended) << "the gone thread's log is used again";
    recorder.record(*main_log, 1, 0);
    Stats totals = {};
    recorder.finish(totals, cycle_counter());
    EXPECT_EQ(totals.calls_of(Call::malloc), 1u);
    EXPECT_EQ(totals.calls_of(Call::free), 1u);
    auto events = events_of(on.scratch.records());
    ASSERT_EQ(events.size(), 4u);
    EXPECT_EQ(events[0].heap, 100u);
    EXPECT_EQ(events[1].heap, 0u);
    EXPECT_EQ(events[2].heap, 7u);
    EXPECT_EQ(events[3].heap, 8u);
}

// A signal handler's call made inside one of the thread's own is counted
// in the thread's nested log, and the thread stops recording directly so that its next
// events cannot reach the stream ahead of the handler's.
TEST(Recorder, AHandlersCallCountsInTheNestedLog) {
    RecorderOnScratch on(32768);
    ASSERT_TRUE(on.ready);
    Recorder& recorder = on.recorder;
    ThreadLog* own = recorder.attach_thread();
    recorder.record(*own, 100, 0);
    ThreadLog* nested = recorder.begin_nested(*own);
    ASSERT_NE(nested, nullptr);
    EXPECT_NE(nested, own);
    EXPECT_TRUE(nested->stop_requested.load()) << "never the thread's counting log";
    EXPECT_FALSE(own->records_directly.load());
    nested->stats.calls_of(Call::malloc) = 1;
    recorder.record(*nested, 777, 0);
    EXPECT_EQ(recorder.begin_nested(*own), nested) << "one nested log per thread";
    recorder.record(*nested, -777, 0);
    recorder.record(*own, -100, 0);
    Stats totals = {};
    recorder.finish(totals, UINT64_MAX / 2);
    EXPECT_EQ(totals.calls_of(Call::malloc), 1u);
    EXPECT_EQ(totals.heap_peak, 877u);
    auto events = events_of(on.scratch.records());
    ASSERT_EQ(events.size(), 4u);
    uint64_t heaps[] = {100, 877, 100, 0};
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(events[i].heap, heaps[i]) << i;
}

// The end of the run stops every thread's counting, but lets a call in
// progress finish first, so that the summary and the file describe the same events.
TEST(RecorderThreads, FinishWaitsForACallInProgressAndStopsTheRest) {
    RecorderOnScratch on(32768);
    ASSERT_TRUE(on.ready);
    Recorder& recorder = on.recorder;
    ThreadLog* slot = nullptr;  // the thread's counting_log
    std::atomic<bool> in_call{false};
    std::atomic<bool> finished{false};
    ThreadLog* log = nullptr;
    std::thread worker([&] {
        log = recorder.attach_thread(&slot);
        __atomic_store_n(&slot, log, __ATOMIC_RELEASE);
        __atomic_store_n(&slot, nullptr, __ATOMIC_RELAXED);  // a call begins
        in_call.store(true);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        log->stats.calls_of(Call::malloc) += 1;
        recorder.record(*log, 50, 0);
        __atomic_store_n(&slot, log, __ATOMIC_RELEASE);  // and ends
        while (!finished.load()) std::this_thread::yield();
        EXPECT_TRUE(log->stop_requested.load()) << "the next call would not count";
    });
    while (!in_call.load()) std::this_thread::yield();
    Stats totals = {};
    recorder.finish(totals, cycle_counter());
    finished.store(true);
    worker.join();
    EXPECT_EQ(totals.calls_of(Call::malloc), 1u);
    auto records = on.scratch.records();
    ASSERT_EQ(records.size(), kHeaderRecords + 1u);
    EXPECT_EQ(records[2].heap, 50u);
    EXPECT_LE(records[2].time(), records[1].time()) << "no record after the end";
    EXPECT_EQ(recorder.attach_thread(), nullptr) << "no new log once the run ends";
}

// fork() takes no lock, so a child may start with the lock held by a thread it does
// not have, halfway through a merge or a write. The child must still count, finish
// without waiting, and write nothing into the parent's file. A fork that catches a
// thread between storing the stream and noting how far its log is merged leaves the
// child that thread's one event twice (a parent's -1 here): the child's heap may be off
// by one event per thread caught so, never more.
TEST(RecorderThreads, AForkedChildFinishesWhateverTheForkCaught) {
    RecorderOnScratch on(1);  // a merge and a write under the lock for every event
    ASSERT_TRUE(on.ready);
    std::atomic<bool> stop{false};
    auto allocate_and_free = [&] {
        ThreadLog* log = on.recorder.attach_thread();
        while (!stop.load(std::memory_order_relaxed)) {
            on.recorder.record(*log, 1, 0);
            on.recorder.record(*log, -1, 0);
        }
        on.recorder.detach_thread(log);
    };
    std::thread first(allocate_and_free), second(allocate_and_free);
    ThreadLog* own = on.recorder.attach_thread();
    for (int i = 0; i < 50; ++i) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            alarm(10);  // a child that hangs dies of SIGALRM instead
            on.recorder.after_fork_in_child(own);
            for (int j = 0; j < 10; ++j) on.recorder.record(*own, j % 2 == 0 ? 5 : -5, 0);
            Stats totals = {};
            on.recorder.finish(totals, UINT64_MAX / 2, own);
            constexpr uint64_t kThreadsCaught = 2;
            _exit(totals.heap_peak + kThreadsCaught >= 5 ? 0 : 1);
        }
        int status = -1;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    }
    stop.store(true);
    first.join();
    second.join();
    Stats totals = {};
    on.recorder.finish(totals, UINT64_MAX / 2, own);
    std::vector<Record> records = on.scratch.records();
    for (const Record& record : events_of(records))
        ASSERT_LE(record.heap, 2u) << "a child's event in the parent's file";
    expect_time_order(records);
}

}  // namespace
}  // namespace memusage
