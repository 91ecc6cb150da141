// SPDX-License-Identifier: MIT
// The data file (docs/file-formats.md, "The data file"): its layout, its header, one record
// per event replaying the program's heap, timer records, buffering, and glibc's
// memusagestat drawing our file.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "collector_run.h"

namespace collector_test {
namespace {

using memusage::Record;

// The fixture's heap after each call (see fixtures/events.c).
const std::vector<uint64_t> kSequenceHeaps = {100, 300, 200, 230, 530, 510, 10, 0, 7};

std::vector<Record> run_sequence(const Scratch& scratch, const std::string& buffer_size = "") {
    std::string data = scratch / ("profile" + buffer_size);
    std::vector<std::string> env = {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"};
    if (!buffer_size.empty()) env.push_back("MEMUSAGE_BUFFER_SIZE=" + buffer_size);
    Outcome outcome = run({fixture("collector_fixture_events"), "sequence"}, env);
    EXPECT_TRUE(outcome.exited_zero()) << outcome.err;
    std::vector<Record> records = read_records(data);
    Summary summary = parse_summary(outcome.err);
    EXPECT_EQ(summary.heap_peak, records.size() > 1 ? records[1].heap : 0)
        << "the summary's heap peak and the file's must agree";
    EXPECT_EQ(summary.stack_peak, records.size() > 1 ? records[1].stack : 0);
    return records;
}

TEST(DataFile, EventRecordsReplayTheProgramsHeap) {
    Scratch scratch;
    std::vector<Record> records = run_sequence(scratch);
    ASSERT_EQ(records.size(), 2 + kSequenceHeaps.size());
    EXPECT_EQ(event_heaps(records), kSequenceHeaps);
    EXPECT_TRUE(events_in_time_order(records));
}

TEST(DataFile, HeaderHoldsThePeaks) {
    Scratch scratch;
    std::vector<Record> records = run_sequence(scratch);
    ASSERT_GE(records.size(), 2u);
    EXPECT_EQ(records[0].heap, 0u);
    EXPECT_EQ(records[1].heap, 530u);
    uint64_t stack_peak = 0, total_peak = 0;
    for (size_t i = 2; i < records.size(); ++i) {
        stack_peak = std::max(stack_peak, records[i].stack);
        total_peak = std::max(total_peak, records[i].heap + records[i].stack);
    }
    // Without the timer every stack sample belongs to a call that also wrote a record
    // (free(NULL) aside, made from the same frame), so the peaks are the records' maxima.
    EXPECT_EQ(records[1].stack, stack_peak);
    EXPECT_EQ(records[0].stack, total_peak) << "record 0 holds the total peak";
    EXPECT_LE(records[0].time(), records[1].time());
}

TEST(DataFile, UnbufferedAndSmallBuffersWriteTheSameRecords) {
    Scratch scratch;
    std::vector<Record> unbuffered = run_sequence(scratch, "1");
    std::vector<Record> five = run_sequence(scratch, "5");
    EXPECT_EQ(event_heaps(unbuffered), kSequenceHeaps);
    EXPECT_EQ(event_heaps(five), kSequenceHeaps);
    ASSERT_EQ(unbuffered.size(), five.size());
    EXPECT_EQ(unbuffered[1].heap, five[1].heap);
}

TEST(DataFile, TimerAddsRecordsWhileTheProgramComputes) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome =
        run({fixture("collector_fixture_events"), "burn"}, {"MEMUSAGE_OUTPUT=" + data});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::vector<Record> records = read_records(data);
    std::vector<uint64_t> heaps = event_heaps(records);
    // malloc and free make two records; 0.3 s of CPU time gives the timer many ticks.
    ASSERT_GT(heaps.size(), 2u) << "no timer records";
    auto first_block = std::find(heaps.begin(), heaps.end(), 1000u);
    auto last_block = std::find(heaps.rbegin(), heaps.rend(), 1000u).base();
    ASSERT_NE(first_block, heaps.end());
    EXPECT_GT(last_block - first_block, 1) << "ticks while the block was held";
    for (auto it = first_block; it != last_block; ++it) EXPECT_EQ(*it, 1000u);
    EXPECT_EQ(heaps.back(), 0u) << "the free comes last";
    EXPECT_TRUE(events_in_time_order(records));
    EXPECT_EQ(records[1].heap, 1000u);
}

// A program that computes before its only allocation: the timer's ticks record it from the
// start, as glibc's collector does (about a hundred records for its 0.33 s), not from the
// first allocation on, which left the graph with nothing but that block.
TEST(DataFile, TimerRecordsTheTimeBeforeTheFirstAllocation) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome =
        run({fixture("collector_fixture_events"), "burn_first"}, {"MEMUSAGE_OUTPUT=" + data});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::vector<Record> records = read_records(data);
    std::vector<uint64_t> heaps = event_heaps(records);
    auto block = std::find(heaps.begin(), heaps.end(), 1000u);
    ASSERT_NE(block, heaps.end()) << "no record of the allocation";
    // The kernel's tick is at most 10 ms: 0.33 s of processor time gives 33 ticks or more.
    EXPECT_GE(block - heaps.begin(), 10) << "ticks before the first allocation";
    for (auto it = heaps.begin(); it != block; ++it) EXPECT_EQ(*it, 0u);
    EXPECT_TRUE(events_in_time_order(records));
    EXPECT_EQ(records[1].heap, 1000u);
}

TEST(DataFile, EmptyOutputNameStillGivesTheSummary) {
    Outcome outcome = run({fixture("collector_fixture_events"), "sequence"},
                          {"MEMUSAGE_OUTPUT=", "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(parse_summary(outcome.err).heap_peak, 530u);
}

TEST(DataFile, GlibcMemusagestatDrawsOurFile) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome =
        run({fixture("collector_fixture_events"), "burn"}, {"MEMUSAGE_OUTPUT=" + data});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::string png = scratch / "graph.png";
    Outcome drawn = run({kGlibcMemusagestat, data, png}, {}, "");
    EXPECT_TRUE(drawn.exited_zero()) << drawn.out << drawn.err;
    std::ifstream in(png, std::ios::binary);
    char signature[8] = {};
    in.read(signature, sizeof signature);
    EXPECT_EQ(std::string(signature, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

size_t count_of(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++count;
    return count;
}

// A file size limit (as a full file system would) stops the second buffer of 1000
// records: the collector says so once, writes nothing more, and leaves the header with
// zero peaks, so memusagestat calls the file incomplete. The program runs on unharmed.
TEST(DataFile, AFailedWriteIsSaidOnceAndTheFileReadsAsIncomplete) {
    Scratch scratch;
    std::string data = scratch / "profile";
    // 64 blocks of 512 bytes: the header and one buffer fit, two buffers do not.
    Outcome outcome =
        run({"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\"",
             fixture("collector_fixture_crashing"), "exit", "3000"},
            {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1", "MEMUSAGE_BUFFER_SIZE=1000",
             "MEMUSAGE_COLOR=never", "MEMUSAGE_PROG_NAME=collector_fixture_crashing"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_of(outcome.err, "cannot write the data file"), 1u) << outcome.err;
    EXPECT_NE(outcome.err.find("memusage: cannot write the data file " + data +
                               ": File too large; it stops at record 1002\n"),
              std::string::npos)
        << outcome.err;
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 3000u);
    std::vector<Record> records = read_records(data);
    ASSERT_EQ(records.size(), 1002u);
    EXPECT_FALSE(memusage::header_is_complete(records[0], records[1]));
    std::vector<uint64_t> heaps = event_heaps(records);
    for (size_t i = 0; i < heaps.size(); ++i) ASSERT_EQ(heaps[i], 32 * (i + 1)) << "event " << i;

    Outcome drawn = run({kOurMemusagestat, data, scratch / "graph.png"}, {}, "");
    EXPECT_TRUE(drawn.exited_zero()) << drawn.err;
    EXPECT_NE(drawn.err.find("incomplete"), std::string::npos) << drawn.err;
}

// A name that opens but takes no writes fails every write: said once, not silently.
TEST(DataFile, AFileThatTakesNoWritesIsSaidOnce) {
    Outcome outcome = run({fixture("collector_fixture_events"), "sequence"},
                          {"MEMUSAGE_OUTPUT=/proc/version", "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_of(outcome.err, "cannot write the data file"), 1u) << outcome.err;
    EXPECT_NE(outcome.err.find("/proc/version"), std::string::npos) << outcome.err;
    EXPECT_EQ(parse_summary(outcome.err).heap_peak, 530u);
}

}  // namespace
}  // namespace collector_test
