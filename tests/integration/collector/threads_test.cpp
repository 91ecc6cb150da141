// SPEC section 9, threads: exact counts and one record per event whatever the number of
// threads, threads that exit early included, and blocks freed by another thread.
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

}  // namespace
}  // namespace collector_test
