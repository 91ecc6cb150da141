// SPDX-License-Identifier: MIT
// One data file, one writer (glibc's collector lets a forked child write into its parent's
// file and an exec'd one truncate it): forked children and exec'd programs never write or
// truncate the file; and MEMUSAGE_PROG_NAME picks the one process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "collector_run.h"

namespace collector_test {
namespace {

using memusage::Record;

// With 100000 pairs before the forks, the parent's writer thread is at work when it
// forks: the children, which have no such thread, must neither wait for it nor write.
TEST(Processes, ForkedChildrenStayOutOfTheParentsFile) {
    for (int pairs_before : {1000, 100000}) {
        Scratch scratch;
        std::string data = scratch / "profile";
        Outcome outcome = run({fixture("collector_fixture_forking"), std::to_string(pairs_before)},
                              {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
        std::vector<Record> records = read_records(data);
        // The pairs before the forks and 10 after, of 64 bytes each.
        ASSERT_EQ(records.size(), 2u + 2 * (pairs_before + 10u));
        std::vector<uint64_t> heaps = event_heaps(records);
        for (size_t i = 0; i < heaps.size(); ++i)
            ASSERT_EQ(heaps[i], i % 2 == 0 ? 64u : 0u) << "record " << i + 2;
        EXPECT_TRUE(events_in_time_order(records));
        EXPECT_EQ(records[1].heap, 64u);
        // Each child prints its own summary when it exits, as with glibc.
        EXPECT_EQ(count_summaries(outcome.err), 5) << outcome.err;
    }
}

// _Fork runs no fork handlers, yet its child must leave the file alone just the same, even
// when it outlives the parent, which has completed the file by then.
TEST(Processes, ChildOfUnderscoreForkStaysOutOfTheParentsFile) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run({fixture("collector_fixture_forking"), "_Fork"},
                          {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 2) << "the child prints its own";
    std::vector<Record> records = read_records(data);
    ASSERT_EQ(records.size(), 2u + 2 * 20);
    std::vector<uint64_t> heaps = event_heaps(records);
    for (size_t i = 0; i < heaps.size(); ++i)
        ASSERT_EQ(heaps[i], i % 2 == 0 ? 64u : 0u) << "record " << i + 2;
    EXPECT_EQ(records[1].heap, 64u) << "the parent's header";
}

// An image exec'd in place of the owner (same process, no fork) is the process being
// profiled from then on, and takes the file over as with glibc: `memusage ./wrapper`
// where the wrapper execs the real program profiles the real program.
TEST(Processes, ImageExecedInPlaceTakesTheFileOver) {
    for (const char* buffer : {"1", "32768"}) {
        Scratch scratch;
        std::string data = scratch / "profile";
        Outcome outcome =
            run({fixture("collector_fixture_exec_self")},
                {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1",
                 std::string("MEMUSAGE_BUFFER_SIZE=") + buffer, "MEMUSAGE_COLOR=never"});
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
        std::vector<Record> records = read_records(data);
        EXPECT_EQ(event_heaps(records), (std::vector<uint64_t>{999, 1998, 2997, 3996, 4995}))
            << "buffer " << buffer;
        ASSERT_GE(records.size(), 2u);
        EXPECT_EQ(records[1].heap, 4995u) << "the header is the exec'd image's, complete";
        ASSERT_EQ(count_summaries(outcome.err), 1) << outcome.err;
        EXPECT_EQ(parse_summary(outcome.err).row("malloc").bytes, 5u * 999);
    }
}

// The sampling timer must not outlive an exec: the new image has SIGPROF's default
// action (death) until its collector starts, or for good when it has none.
TEST(Processes, ExecsWhileSamplingNeverDieOfSigprof) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run({fixture("collector_fixture_exec_chain"), "20"},
                          {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 1) << "only the last image exits";
    ASSERT_GE(read_records(data).size(), 3u);
    EXPECT_EQ(read_records(data)[1].heap, 100u) << "the last image's complete header";
}

TEST(Processes, AProgramStartedWithoutTheCollectorMeetsNoSigprof) {
    Scratch scratch;
    Outcome outcome = run({fixture("collector_fixture_exec_chain"), "2", "bare"},
                          {"MEMUSAGE_OUTPUT=" + (scratch / "profile"), "MEMUSAGE_COLOR=never"});
    EXPECT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 0) << outcome.err;
}

TEST(Processes, ForkedChildThatExecsLeavesTheParentsFileAlone) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome =
        run({fixture("collector_fixture_exec_self"), "fork"},
            {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1", "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::vector<Record> records = read_records(data);
    std::vector<uint64_t> expected;
    for (uint64_t i = 1; i <= 10; ++i) expected.push_back(64 * i);
    EXPECT_EQ(event_heaps(records), expected);
    ASSERT_GE(records.size(), 2u);
    EXPECT_EQ(records[1].heap, 640u) << "the parent completed its header at exit";
    // The parent's summary and the exec'd child's, which still prints one.
    EXPECT_EQ(count_summaries(outcome.err), 2) << outcome.err;
}

TEST(Processes, ProgNameProfilesOnlyTheNamedProgram) {
    Scratch scratch;
    std::string data = scratch / "profile";
    std::string script = "'" + fixture("collector_fixture_name_a") + "'; '" +
                         fixture("collector_fixture_name_b") + "'";
    Outcome outcome = run({"/bin/sh", "-c", script},
                          {"MEMUSAGE_PROG_NAME=collector_fixture_name_b", "MEMUSAGE_OUTPUT=" + data,
                           "MEMUSAGE_NO_TIMER=1", "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    ASSERT_EQ(count_summaries(outcome.err), 1) << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("malloc").calls, 1u);
    EXPECT_EQ(s.row("malloc").bytes, 222u) << "the summary is not fixture B's";
    EXPECT_EQ(event_heaps(read_records(data)), (std::vector<uint64_t>{222, 0}));
}

// Siblings inherit nothing from each other: the shell between them passes on the start of
// the run, and the later ones find the file written since then, even though the first has
// exited and let go of it.
TEST(Processes, TheFirstProcessOfTheNameKeepsTheFileFromItsSiblings) {
    Scratch scratch;
    std::string data = scratch / "profile";
    std::string program = "'" + fixture("collector_fixture_crashing") + "' exit ";
    for (bool file_existed : {false, true}) {
        SCOPED_TRACE(file_existed ? "over an old file" : "a new file");
        Outcome outcome =
            run({"/bin/sh", "-c", program + "3; " + program + "1; " + program + "5"},
                {"MEMUSAGE_PROG_NAME=collector_fixture_crashing", "MEMUSAGE_OUTPUT=" + data,
                 "MEMUSAGE_NO_TIMER=1", "MEMUSAGE_COLOR=never"});
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
        EXPECT_EQ(count_summaries(outcome.err), 3) << "each one counts";
        std::vector<Record> records = read_records(data);
        EXPECT_EQ(event_heaps(records), (std::vector<uint64_t>{32, 64, 96}));
        ASSERT_GE(records.size(), 2u);
        EXPECT_EQ(records[1].heap, 96u) << "the first one's complete header";
    }
}

// A relative name means another file in another directory, and a run of its own: an old
// file there is taken, not mistaken for one a process of this run wrote.
TEST(Processes, ASiblingInAnotherDirectoryWritesItsOwnFile) {
    Scratch scratch;
    std::string program = "'" + fixture("collector_fixture_crashing") + "' exit ";
    std::filesystem::create_directory(scratch / "sub");
    std::ofstream(scratch / "sub/profile") << "an old file";
    std::string script =
        "cd '" + scratch.path() + "' && " + program + "3; cd sub && " + program + "1";
    Outcome outcome =
        run({"/bin/sh", "-c", script}, {"MEMUSAGE_PROG_NAME=collector_fixture_crashing",
                                        "MEMUSAGE_OUTPUT=profile", "MEMUSAGE_NO_TIMER=1"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(event_heaps(read_records(scratch / "profile")), (std::vector<uint64_t>{32, 64, 96}));
    EXPECT_EQ(event_heaps(read_records(scratch / "sub/profile")), (std::vector<uint64_t>{32}));
}

// With the collector preloaded by hand, each run of a program starts a new run: the file
// is created or truncated as glibc's is.
TEST(Processes, EachRunOfAProgramTakesTheFileAgain) {
    Scratch scratch;
    std::string data = scratch / "profile";
    for (const char* blocks : {"4", "2"}) {
        Outcome outcome = run({fixture("collector_fixture_crashing"), "exit", blocks},
                              {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    }
    EXPECT_EQ(event_heaps(read_records(data)), (std::vector<uint64_t>{32, 64}));
}

// fork() as glibc makes it: free of deadlocks with stdio, and async-signal-safe in a
// single-threaded program. Each case runs three ways: counting only, writing a data file
// (with the sampling timer), and tracing mmap. A hang is a deadline passed.
class ForkSafety : public ::testing::TestWithParam<std::string> {
  protected:
    static constexpr int kDeadlineSeconds = 90;

    std::vector<std::string> environment() const {
        std::vector<std::string> env = {"MEMUSAGE_COLOR=never"};
        if (GetParam() == "data_file") env.push_back("MEMUSAGE_OUTPUT=" + data_);
        if (GetParam() == "trace_mmap") env.push_back("MEMUSAGE_TRACE_MMAP=1");
        return env;
    }
    bool writes_file() const { return GetParam() == "data_file"; }

    // The parent's file: complete, in order, and nothing but heaps the parent can have.
    void expect_parents_file(const std::vector<uint64_t>& possible_heaps, size_t min_events) {
        std::vector<Record> records = read_records(data_);
        ASSERT_GE(records.size(), 2u + min_events);
        EXPECT_TRUE(memusage::header_is_complete(records[0], records[1]));
        EXPECT_TRUE(events_in_time_order(records));
        for (uint64_t heap : event_heaps(records))
            ASSERT_NE(std::find(possible_heaps.begin(), possible_heaps.end(), heap),
                      possible_heaps.end())
                << "a heap of " << heap << " is not the parent's";
    }

    static int handler_forks(const Outcome& outcome) {
        int forks = -1;
        sscanf(outcome.out.c_str(), "handler forks: %d", &forks);
        return forks;
    }

    Scratch scratch_;
    std::string data_ = scratch_ / "profile";
};

// glibc's tst-malloc-fork-deadlock (bug 19431): a getline thread reallocates under its
// FILE's lock, fflush(NULL) holds the stream list's lock and waits for that FILE, and
// fork() takes the list's lock after the fork handlers ran: those must hold no lock a
// reallocating thread may wait for.
TEST_P(ForkSafety, ForkWhileOtherThreadsUseStdio) {
    Outcome outcome = run_bounded(
        kDeadlineSeconds, {fixture("collector_fixture_fork_with_stdio"), "2", scratch_ / "line"},
        environment());
    ASSERT_FALSE(outcome.timed_out) << "deadlocked";
    ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 1) << "the children leave by _exit";
    if (writes_file()) {
        std::vector<Record> records = read_records(data_);
        ASSERT_GE(records.size(), 2u);
        EXPECT_TRUE(memusage::header_is_complete(records[0], records[1]));
        EXPECT_TRUE(events_in_time_order(records));
    }
}

// glibc's tst-mallocfork2 (bug 24161): a signal handler forks while the program is in
// fork(), malloc() or free(), and the child leaves at once.
TEST_P(ForkSafety, ForkInASignalHandlerThatInterruptsFork) {
    constexpr int kRounds = 300;
    Outcome outcome = run_bounded(
        kDeadlineSeconds,
        {fixture("collector_fixture_fork_in_handler"), "storm", std::to_string(kRounds)},
        environment());
    ASSERT_FALSE(outcome.timed_out) << "deadlocked";
    ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
    EXPECT_GT(handler_forks(outcome), 0) << outcome.out;
    ASSERT_EQ(count_summaries(outcome.err), 1) << "the children leave by _exit";
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, static_cast<uint64_t>(kRounds));
    if (writes_file()) expect_parents_file({0, 100}, 2 * kRounds);
}

// glibc's tst-mallocfork, many times over: the handler's child leaves through exit(),
// so through the collector's end, after a fork that interrupted the parent anywhere.
TEST_P(ForkSafety, ForkInASignalHandlerWhoseChildExits) {
    constexpr int kRounds = 100;
    Outcome outcome = run_bounded(
        kDeadlineSeconds,
        {fixture("collector_fixture_fork_in_handler"), "from_child", std::to_string(kRounds)},
        environment());
    ASSERT_FALSE(outcome.timed_out) << "deadlocked";
    ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
    EXPECT_EQ(handler_forks(outcome), kRounds) << outcome.out;
    // Each round's two children print theirs, and the parent its own.
    EXPECT_EQ(count_summaries(outcome.err), 2 * kRounds + 1);
    if (writes_file()) expect_parents_file({0, 100}, 2 * kRounds);
}

INSTANTIATE_TEST_SUITE_P(Collector, ForkSafety,
                         ::testing::Values("plain", "data_file", "trace_mmap"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace collector_test
