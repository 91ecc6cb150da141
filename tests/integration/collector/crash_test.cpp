// SPDX-License-Identifier: MIT
// Crashes (docs/file-formats.md, "How a run that died looks"): a killed run leaves a
// drawable file holding every full buffer (every record unbuffered); a run dying of a fatal
// signal it does not handle gets its records flushed and its header completed, and still
// dies of that signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "collector_run.h"

namespace collector_test {
namespace {

using memusage::Record;

constexpr uint64_t kBlock = 32;

std::vector<uint64_t> growing_heaps(uint64_t blocks) {
    std::vector<uint64_t> heaps;
    for (uint64_t i = 1; i <= blocks; ++i) heaps.push_back(i * kBlock);
    return heaps;
}

// The file takes its length before each write: a write the kill cut short leaves zero
// records after the last one written, which readers drop.
std::vector<Record> without_unwritten_tail(std::vector<Record> records) {
    while (records.size() > memusage::kHeaderRecords && records.back().heap == 0 &&
           records.back().stack == 0 && records.back().time() == 0)
        records.pop_back();
    return records;
}

Outcome run_crash(const std::string& how, uint64_t blocks, const std::string& data,
                  const std::vector<std::string>& more_env = {}) {
    std::vector<std::string> env = {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"};
    env.insert(env.end(), more_env.begin(), more_env.end());
    return run({fixture("collector_fixture_crashing"), how, std::to_string(blocks)}, env);
}

// Both memusagestat programs draw the file, each from its own copy: glibc's writes the
// repaired header back.
void expect_both_memusagestats_draw(const Scratch& scratch, const std::string& data) {
    for (const std::string& tool : {kOurMemusagestat, kGlibcMemusagestat}) {
        std::string copy = scratch / "copy";
        std::filesystem::copy_file(data, copy, std::filesystem::copy_options::overwrite_existing);
        std::string png = scratch / "graph.png";
        std::filesystem::remove(png);
        Outcome drawn = run({tool, copy, png}, {}, "");
        EXPECT_TRUE(drawn.exited_zero()) << tool << ": " << drawn.out << drawn.err;
        EXPECT_TRUE(std::filesystem::exists(png)) << tool;
    }
}

TEST(Crashes, KilledRunLeavesADrawableFileWithAnOpenHeader) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run_crash("kill", 100000, data);
    ASSERT_EQ(outcome.signal(), SIGKILL);
    std::vector<Record> records = read_records(data);
    ASSERT_GE(records.size(), 2u);
    EXPECT_FALSE(memusage::header_is_complete(records[0], records[1]))
        << "nothing can complete the header after SIGKILL";
    std::vector<uint64_t> heaps = event_heaps(without_unwritten_tail(records));
    EXPECT_EQ(heaps, growing_heaps(heaps.size())) << "the records in the file are the first events";
    EXPECT_GE(heaps.size(), 100000u - 32768u) << "every full buffer is in the file";
    expect_both_memusagestats_draw(scratch, data);
}

TEST(Crashes, KilledUnbufferedRunKeepsEveryRecord) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run_crash("kill", 3000, data, {"MEMUSAGE_BUFFER_SIZE=1"});
    ASSERT_EQ(outcome.signal(), SIGKILL);
    EXPECT_EQ(event_heaps(without_unwritten_tail(read_records(data))), growing_heaps(3000));
    expect_both_memusagestats_draw(scratch, data);
}

class FatalSignal : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(FatalSignal, FlushesCompletesTheHeaderAndStillDies) {
    const auto& [how, signal_number] = GetParam();
    Scratch scratch;
    std::string data = scratch / "profile";
    constexpr uint64_t kBlocks = 1000;
    Outcome outcome = run_crash(how, kBlocks, data);
    EXPECT_EQ(outcome.signal(), signal_number) << "wait status " << outcome.status;
    std::vector<Record> records = read_records(data);
    ASSERT_GE(records.size(), 2u);
    EXPECT_EQ(event_heaps(records), growing_heaps(kBlocks));
    EXPECT_EQ(records[1].heap, kBlocks * kBlock) << "heap peak";
    EXPECT_NE(records[0].stack, 0u) << "total peak";
    EXPECT_GE(records[0].stack, kBlocks * kBlock);
    expect_both_memusagestats_draw(scratch, data);
}

// Many full buffers and a partial one: every record reaches the file, whether the
// program returns or dies of a fatal signal.
TEST(Crashes, EveryRecordOfALongRunReachesTheFile) {
    constexpr uint64_t kBlocks = 300000;  // nine buffers of 32768 records and part of another
    for (std::string how : {"return", "segv"}) {
        Scratch scratch;
        std::string data = scratch / "profile";
        Outcome outcome = run_crash(how, kBlocks, data);
        if (how == "segv")
            EXPECT_EQ(outcome.signal(), SIGSEGV) << "wait status " << outcome.status;
        else
            EXPECT_TRUE(WIFEXITED(outcome.status) && WEXITSTATUS(outcome.status) == 3)
                << outcome.err;
        std::vector<Record> records = read_records(data);
        ASSERT_GE(records.size(), 2u);
        EXPECT_EQ(event_heaps(records), growing_heaps(kBlocks)) << how;
        EXPECT_EQ(records[1].heap, kBlocks * kBlock) << how << ": heap peak";
    }
}

// Crashes that leave the handler little room: a stack overflow (nothing left of the
// thread's stack: the handler runs on an alternate one), and a fault while the program
// blocks every signal (the kernel kills without running any handler; the program's masks
// stay its own, so the collector completes the file when the program blocks the faults,
// and at every write after). Each still dies of SIGSEGV; with a data file (and with mmap
// tracing too), the file is complete.
class CrashWithoutRoom : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CrashWithoutRoom, StillDiesOfItWithTheFileComplete) {
    const auto& [how, mode] = GetParam();
    Scratch scratch;
    std::string data = scratch / "profile";
    constexpr uint64_t kBlocks = 1000;
    std::vector<std::string> env = {"MEMUSAGE_NO_TIMER=1"};
    if (mode != "plain") env.push_back("MEMUSAGE_OUTPUT=" + data);
    if (mode == "trace_mmap") env.push_back("MEMUSAGE_TRACE_MMAP=1");
    Outcome outcome =
        run({fixture("collector_fixture_crashing"), how, std::to_string(kBlocks)}, env);
    ASSERT_EQ(outcome.signal(), SIGSEGV) << "wait status " << outcome.status;
    if (mode == "plain") return;
    std::vector<Record> records = read_records(data);
    ASSERT_GE(records.size(), 2u);
    EXPECT_TRUE(memusage::header_is_complete(records[0], records[1]));
    std::vector<uint64_t> heaps = event_heaps(records);
    if (how == "overflow_in_thread") {
        // Then the thread's own block (and with mmap tracing, its stack) come after.
        ASSERT_GE(heaps.size(), kBlocks + 1);
        heaps.resize(kBlocks);
    } else {
        EXPECT_EQ(records[1].heap, kBlocks * kBlock) << "heap peak";
    }
    EXPECT_EQ(heaps, growing_heaps(kBlocks));
}

INSTANTIATE_TEST_SUITE_P(
    Collector, CrashWithoutRoom,
    ::testing::Combine(::testing::Values("overflow", "overflow_in_thread", "own_altstack_overflow",
                                         "blocked_null_write", "pthread_blocked_null_write",
                                         "handler_null_write"),
                       ::testing::Values("plain", "data_file", "trace_mmap")),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

INSTANTIATE_TEST_SUITE_P(Collector, FatalSignal,
                         ::testing::Values(std::make_pair(std::string("segv"), SIGSEGV),
                                           std::make_pair(std::string("null_write"), SIGSEGV),
                                           std::make_pair(std::string("abort"), SIGABRT)),
                         [](const auto& info) { return info.param.first; });

}  // namespace
}  // namespace collector_test
