// SPEC section 9, crashes: a killed run leaves a drawable file holding every full buffer
// but the one being written (every record unbuffered); a run dying of a fatal signal it does not
// handle gets its records flushed and its header completed, and still dies of that signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>

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
    // The writer thread may have been killed in the middle of the last full buffer:
    // the file had taken its length, so the unwritten rest is whole records of zeros.
    while (records.size() > 2 && records.back().heap == 0 && records.back().stack == 0 &&
           records.back().time() == 0)
        records.pop_back();
    std::vector<uint64_t> heaps = event_heaps(records);
    std::vector<uint64_t> expected = growing_heaps(heaps.size());
    EXPECT_EQ(heaps, expected) << "the records on disk are a prefix of the events";
    EXPECT_GE(heaps.size(), 2 * 32768u)
        << "every full buffer but the one being written is in the file";
    expect_both_memusagestats_draw(scratch, data);
}

TEST(Crashes, KilledUnbufferedRunKeepsEveryRecord) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run_crash("kill", 3000, data, {"MEMUSAGE_BUFFER_SIZE=1"});
    ASSERT_EQ(outcome.signal(), SIGKILL);
    EXPECT_EQ(event_heaps(read_records(data)), growing_heaps(3000));
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

// Many full buffers: the writer thread has some in hand when the run ends, and all of
// them reach the file, whether the program returns or dies of a fatal signal.
TEST(Crashes, EveryBufferOfALongRunReachesTheFile) {
    constexpr uint64_t kBlocks = 300000;  // nine buffers of 32768 records and a partial one
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

INSTANTIATE_TEST_SUITE_P(Collector, FatalSignal,
                         ::testing::Values(std::make_pair(std::string("segv"), SIGSEGV),
                                           std::make_pair(std::string("null_write"), SIGSEGV),
                                           std::make_pair(std::string("abort"), SIGABRT)),
                         [](const auto& info) { return info.param.first; });

}  // namespace
}  // namespace collector_test
