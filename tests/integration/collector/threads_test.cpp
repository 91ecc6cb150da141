// SPDX-License-Identifier: MIT
// Threads: exact counts and one record per event whatever the number of threads, threads
// that exit early included, and blocks freed by another thread.
// What thread creation itself allocates is glibc's business, so the fixture runs twice,
// with no worker pairs and with M of them: the difference is exactly the workers' work.
#include <gtest/gtest.h>

#include <algorithm>

#include "collector_run.h"

namespace collector_test {
namespace {

using memusage::Record;

constexpr uint64_t kPairs = 20000;  // per worker
constexpr uint64_t kWorkers = 4;
constexpr uint64_t kWorkerBytesPerRound = 16 + 32 + 48 + 64;  // one pair of each worker
constexpr uint64_t kKept = 12345;                             // the main thread's block

struct ThreadedRun {
    Summary summary;
    std::vector<Record> records;
};

ThreadedRun run_threads(uint64_t pairs) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run({fixture("collector_fixture_threads"), std::to_string(pairs)},
                          {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
    EXPECT_TRUE(outcome.exited_zero()) << outcome.err;
    return {parse_summary(outcome.err), read_records(data)};
}

TEST(Threads, CountsAreExact) {
    ThreadedRun idle = run_threads(0);
    ThreadedRun busy = run_threads(kPairs);
    EXPECT_EQ(busy.summary.row("malloc").calls - idle.summary.row("malloc").calls,
              kWorkers * kPairs);
    EXPECT_EQ(busy.summary.row("free").calls - idle.summary.row("free").calls, kWorkers * kPairs);
    EXPECT_EQ(busy.summary.row("malloc").bytes - idle.summary.row("malloc").bytes,
              kWorkerBytesPerRound * kPairs);
    EXPECT_EQ(busy.summary.row("free").bytes - idle.summary.row("free").bytes,
              kWorkerBytesPerRound * kPairs);
    // The main thread's kept block, the 200 handed-over blocks, the workers' pairs.
    EXPECT_GE(busy.summary.row("malloc").calls, kWorkers * kPairs + 1 + 200);
    EXPECT_EQ(busy.summary.heap_total - idle.summary.heap_total, kWorkerBytesPerRound * kPairs);
}

TEST(Threads, OneRecordPerEventInTimeOrder) {
    ThreadedRun idle = run_threads(0);
    ThreadedRun busy = run_threads(kPairs);
    ASSERT_GE(busy.records.size(), idle.records.size());
    EXPECT_EQ(busy.records.size() - idle.records.size(), 2 * kWorkers * kPairs);
    // At least the kept block, 200 handed-over mallocs and their frees.
    EXPECT_GE(idle.records.size(), 2u + 1 + 400);
    EXPECT_TRUE(events_in_time_order(busy.records));
}

TEST(Threads, HeapReplaysWithoutWrapping) {
    ThreadedRun busy = run_threads(kPairs);
    std::vector<uint64_t> heaps = event_heaps(busy.records);
    ASSERT_FALSE(heaps.empty());
    uint64_t highest = *std::max_element(heaps.begin(), heaps.end());
    // Four workers hold at most one block each, the producer 200 blocks of 40 bytes: a
    // heap above a megabyte means a free was ordered before its malloc and the heap wrapped.
    EXPECT_LT(highest, uint64_t{1} << 20);
    EXPECT_EQ(busy.records[1].heap, highest) << "the header's heap peak is the records' maximum";
    EXPECT_EQ(busy.summary.heap_peak, highest);
    // Every worker block is freed; what remains is the kept block plus whatever the
    // threads library keeps, which is the same with no worker pairs.
    ThreadedRun idle = run_threads(0);
    ASSERT_FALSE(idle.records.empty());
    EXPECT_GE(heaps.back(), kKept);
    EXPECT_EQ(heaps.back(), event_heaps(idle.records).back());
}

// glibc's thread teardown frees memory after the thread's last
// thread-specific destructor. Those calls are counted as glibc counts them, and the
// thread's log is taken back afterwards: 20,000 threads in turn keep the memory of one.
TEST(Threads, ThreadsComingAndGoingKeepMemoryFlatAndCountsExact) {
    ASSERT_TRUE(glibc_collector_present());
    const std::string threads = "20000";
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome ours = run({fixture("collector_fixture_short_threads"), threads},
                       {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
    ASSERT_TRUE(ours.exited_zero()) << "status " << ours.status << "\n" << ours.err;
    long max_rss_kib = -1;
    ASSERT_EQ(sscanf(ours.out.c_str(), "max rss kib: %ld", &max_rss_kib), 1) << ours.out;
    // The program alone needs under 2 MiB, the record buffer adds 0.75 MiB, a thread's
    // log 57 KiB: a log kept per thread would add over a gigabyte.
    EXPECT_LT(max_rss_kib, 16 * 1024);

    Outcome glibc = run({fixture("collector_fixture_short_threads"), threads},
                        {"MEMUSAGE_NO_TIMER=1"}, kGlibcCollector);
    ASSERT_TRUE(glibc.exited_zero()) << glibc.err;
    Summary expected = parse_summary(glibc.err), got = parse_summary(ours.err);
    for (const char* row : {"malloc", "calloc", "realloc", "free"}) {
        EXPECT_EQ(got.row(row).calls, expected.row(row).calls) << row;
        EXPECT_EQ(got.row(row).bytes, expected.row(row).bytes) << row;
    }
    EXPECT_GE(got.row("malloc").calls, 20000u);
    // One record per event: every malloc and every free of a block.
    std::vector<Record> records = read_records(data);
    ASSERT_GE(records.size(), 2u + 2 * 20000);
    EXPECT_EQ(event_heaps(records).back(), got.heap_total - got.row("free").bytes);
}

// Threads still allocating when the program exits. The run ends at one
// instant for the summary and the file alike: every block the summary counts is in the
// file, and no record is stamped after the header's end time.
TEST(Threads, ThreadsStillRunningAtExitAgreeWithTheFile) {
    constexpr uint64_t kBlock = 4004, kThreads = 3;
    for (int round = 0; round < 3; ++round) {
        Scratch scratch;
        std::string data = scratch / "profile";
        Outcome outcome =
            run({fixture("collector_fixture_detached_at_exit"), std::to_string(kThreads)},
                {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
        ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
        Summary summary = parse_summary(outcome.err);
        std::vector<Record> records = read_records(data);
        ASSERT_GT(records.size(), 2u);
        uint64_t end = records[1].time();
        uint64_t late = 0, allocations = 0, frees = 0;
        for (size_t i = memusage::kHeaderRecords; i < records.size(); ++i) {
            late += records[i].time() > end;
            uint64_t before = i == memusage::kHeaderRecords ? 0 : records[i - 1].heap;
            allocations += records[i].heap == before + kBlock;
            frees += records[i].heap + kBlock == before;
        }
        EXPECT_EQ(late, 0u) << "records stamped after the end, round " << round;
        // The histogram counts the threads' mallocs; the file holds each as a +4004 step.
        EXPECT_EQ(allocations, summary.histogram["4000-4015"]) << "round " << round;
        // A thread stopped between its malloc and its free holds one block.
        EXPECT_LE(allocations - frees, kThreads) << "round " << round;
        EXPECT_EQ(summary.row("realloc").calls, 0u);
        EXPECT_EQ(event_heaps(records).back(), summary.heap_total - summary.row("free").bytes)
            << "the file's last heap is what the summary's totals leave, round " << round;
    }
}

}  // namespace
}  // namespace collector_test
