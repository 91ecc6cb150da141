// SPDX-License-Identifier: MIT
// The timer (SIGPROF, while a data file is written): a program with its own SIGPROF use
// keeps it working while the collector samples, and one that ignores SIGPROF is not killed
// by the collector's timer, whatever function set the disposition.
#include <gtest/gtest.h>

#include <tuple>

#include "collector_run.h"

namespace collector_test {
namespace {

TEST(Sigprof, ProgramsOwnHandlerStillRuns) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome =
        run({fixture("collector_fixture_sigprof"), "own"}, {"MEMUSAGE_OUTPUT=" + data});
    ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
    int calls = -1;
    ASSERT_EQ(sscanf(outcome.out.c_str(), "handler calls: %d", &calls), 1) << outcome.out;
    EXPECT_GT(calls, 0);
    std::vector<memusage::Record> records = read_records(data);
    ASSERT_GE(records.size(), 2u + 60) << "30 malloc/free pairs";
    EXPECT_EQ(records[1].heap, 129u) << "the largest block, malloc(100 + 29)";
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 30u);
}

TEST(Sigprof, ProgramIgnoringSigprofSurvivesTheTimer) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome =
        run({fixture("collector_fixture_sigprof"), "ignore"}, {"MEMUSAGE_OUTPUT=" + data});
    EXPECT_EQ(outcome.signal(), 0);
    ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 30u);
    EXPECT_GE(read_records(data).size(), 2u + 60);
}

// Every function that sets a disposition is seen, not only sigaction and signal: the
// program's SIGPROF handler gets none of the collector's ticks, and a one-shot handler
// (sysv_signal's) is not followed by death. Run plain, with a data file (the timer runs
// only then) and with mmap tracing as well.
class SigprofDisposition : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(SigprofDisposition, ProgramsHandlerGetsOnlyItsOwnSignals) {
    const auto& [function, mode] = GetParam();
    Scratch scratch;
    std::string data = scratch / "profile";
    std::vector<std::string> env;
    if (mode != "plain") env.push_back("MEMUSAGE_OUTPUT=" + data);
    if (mode == "trace_mmap") env.push_back("MEMUSAGE_TRACE_MMAP=1");
    Outcome outcome = run({fixture("collector_fixture_sigprof"), function}, env);
    EXPECT_EQ(outcome.signal(), 0);
    ASSERT_TRUE(outcome.exited_zero()) << "status " << outcome.status << "\n" << outcome.err;
    EXPECT_EQ(outcome.out, function == "sigignore" ? "handler calls: 0\n" : "handler calls: 1\n")
        << "its own raise(SIGPROF) only";
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 30u);
    if (mode != "plain") {
        EXPECT_GE(read_records(data).size(), 2u + 60);
    }
}

INSTANTIATE_TEST_SUITE_P(Collector, SigprofDisposition,
                         ::testing::Combine(::testing::Values("sysv_signal", "__sysv_signal",
                                                              "bsd_signal", "ssignal", "sigset",
                                                              "sigignore", "__sigaction"),
                                            ::testing::Values("plain", "data_file", "trace_mmap")),
                         [](const auto& info) {
                             std::string function = std::get<0>(info.param);
                             if (function.rfind("__", 0) == 0) function = "underscored" + function;
                             return function + "_" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace collector_test
