// SPDX-License-Identifier: MIT
// Signal handlers that run in the middle of the collector's own
// work. A handler that calls exit() must not hang the exit, and what a handler allocates
// is counted as glibc counts it. Each case runs plain, with a data file and with mmap
// tracing.
#include <gtest/gtest.h>

#include <cstdlib>

#include "collector_run.h"

namespace collector_test {
namespace {

// The environment of each way to run.
std::vector<std::string> environment_for(const std::string& way, const Scratch& scratch) {
    if (way == "data_file") return {"MEMUSAGE_OUTPUT=" + scratch / "profile"};
    if (way == "mmap_tracing") return {"MEMUSAGE_NO_TIMER=1", "MEMUSAGE_TRACE_MMAP=1"};
    return {"MEMUSAGE_NO_TIMER=1"};
}

class SignalHandler : public ::testing::TestWithParam<std::string> {};

// A hang is a run still going after this long; timeout(1) kills it (status 137).
Outcome run_bounded(const std::string& program, const std::vector<std::string>& arguments,
                    const std::vector<std::string>& environment) {
    std::vector<std::string> argv = {"/usr/bin/timeout", "-s", "KILL", "20", fixture(program)};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<std::string> env = environment;
    env.push_back("MEMUSAGE_PROG_NAME=" + program);  // not timeout itself
    return run(argv, env);
}

// Item 2: SIGTERM's handler calls exit(0) while a thread allocates. With one record per
// buffer, that thread holds the collector's lock for much of its time (before the fix,
// 4 runs in 10 hung); the exit must always complete, with its summary.
TEST_P(SignalHandler, ExitFromAHandlerThatInterruptedTheCollectorCompletes) {
    for (int round = 0; round < 20; ++round) {
        Scratch scratch;
        std::vector<std::string> env = environment_for(GetParam(), scratch);
        env.push_back("MEMUSAGE_BUFFER_SIZE=1");
        Outcome outcome = run_bounded("collector_fixture_exit_in_handler", {"1"}, env);
        ASSERT_TRUE(outcome.exited_zero())
            << "round " << round << ", status " << outcome.status << "\n"
            << outcome.err;
        EXPECT_EQ(count_summaries(outcome.err), 1) << outcome.err;
        Summary summary = parse_summary(outcome.err);
        EXPECT_GT(summary.row("malloc").calls, 2000u);
        if (GetParam() != "data_file") continue;
        // Completed, the file holds what the summary counts (every call here is a malloc,
        // a calloc or a free of a block, one record each, plus the timer's ticks), but for
        // the call the handler interrupted, which may be counted and never recorded. Left
        // as a killed run leaves it (the exit stopped a merge halfway), its header says so.
        std::vector<memusage::Record> records = read_records(scratch / "profile");
        ASSERT_GE(records.size(), 2u);
        if (records[1].heap == 0) continue;
        uint64_t events =
            summary.row("malloc").calls + summary.row("calloc").calls + summary.row("free").calls;
        EXPECT_GE(records.size() - 2 + 1, events) << "round " << round;
        auto file_heap = static_cast<int64_t>(event_heaps(records).back());
        auto summary_heap = static_cast<int64_t>(summary.heap_total - summary.row("free").bytes);
        EXPECT_LE(std::abs(file_heap - summary_heap), 16 + 255) << "round " << round;
        EXPECT_LE(records.back().time(), records[1].time());
    }
}

// Item 8: a handler allocating while the main thread is inside the collector (most of
// its time). Every one of its calls is counted, and its blocks' frees subtract exactly
// what their mallocs added.
TEST_P(SignalHandler, AllocationsInAHandlerAreCounted) {
    constexpr long kPairs = 400000;
    Scratch scratch;
    std::string data = scratch / "profile";
    std::vector<std::string> env = environment_for(GetParam(), scratch);
    env.push_back("MEMUSAGE_NO_TIMER=1");  // one record per event
    bool with_file = GetParam() == "data_file";

    Outcome quiet =
        run({fixture("collector_fixture_handler_allocs"), std::to_string(kPairs), "none"}, env);
    ASSERT_TRUE(quiet.exited_zero()) << quiet.err;
    std::vector<memusage::Record> quiet_records;
    if (with_file) quiet_records = read_records(data);
    Outcome busy =
        run({fixture("collector_fixture_handler_allocs"), std::to_string(kPairs), "timer"}, env);
    ASSERT_TRUE(busy.exited_zero()) << busy.err;
    int handler_pairs = -1;
    ASSERT_EQ(sscanf(busy.out.c_str(), "handler pairs: %d", &handler_pairs), 1) << busy.out;
    ASSERT_GT(handler_pairs, 100) << "the timer hardly interrupted the main thread";

    Summary base = parse_summary(quiet.err), got = parse_summary(busy.err);
    auto pairs = static_cast<uint64_t>(handler_pairs);
    EXPECT_EQ(got.histogram["768-783"] - base.histogram["768-783"], pairs);
    EXPECT_EQ(got.row("malloc").calls - base.row("malloc").calls, pairs);
    EXPECT_EQ(got.row("malloc").bytes - base.row("malloc").bytes, 777 * pairs);
    EXPECT_EQ(got.row("free").calls - base.row("free").calls, pairs);
    EXPECT_EQ(got.row("free").bytes - base.row("free").bytes, 777 * pairs);
    EXPECT_LE(got.heap_peak, base.heap_peak + 777);
    if (with_file) {
        std::vector<memusage::Record> records = read_records(data);
        ASSERT_GT(quiet_records.size(), 2u);
        EXPECT_EQ(records.size() - quiet_records.size(), 2 * pairs)
            << "one record per malloc and per free";
        EXPECT_EQ(event_heaps(records).back(), event_heaps(quiet_records).back())
            << "the handler freed all it allocated";
        EXPECT_TRUE(events_in_time_order(records));
    }
}

INSTANTIATE_TEST_SUITE_P(Ways, SignalHandler,
                         ::testing::Values("plain", "data_file", "mmap_tracing"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

}  // namespace
}  // namespace collector_test
