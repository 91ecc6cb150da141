// SPDX-License-Identifier: MIT
// The summary reaches the original standard error even when the program closes or redirects
// its own before exiting (glibc prints nothing then).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "collector_run.h"

namespace collector_test {
namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

class StderrTakenAway : public ::testing::TestWithParam<std::string> {};

TEST_P(StderrTakenAway, SummaryStillArrives) {
    Outcome outcome =
        run({fixture("collector_fixture_stderr_closing"), GetParam()}, {"MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    ASSERT_EQ(count_summaries(outcome.err), 1) << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("malloc").calls, 1u);
    EXPECT_EQ(s.row("malloc").bytes, 100u);
    EXPECT_EQ(s.heap_peak, 100u);
}

INSTANTIATE_TEST_SUITE_P(Collector, StderrTakenAway,
                         ::testing::Values("fclose", "close", "dup2", "closefrom"));

// A program that closed every descriptor and opened a file of its own as descriptor 2
// (and under the number of the collector's copy): the summary is not for that file, and
// the standard error it started with is gone, so nothing is written anywhere.
TEST(StderrReplaced, SummaryNeverLandsInTheProgramsOwnFile) {
    Scratch scratch;
    std::string own_file = scratch / "own";
    std::string data = scratch / "profile";
    Outcome outcome = run({fixture("collector_fixture_stderr_closing"), "reopen", own_file},
                          {"MEMUSAGE_COLOR=never", "MEMUSAGE_OUTPUT=" + data});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(read_file(own_file), "");
    EXPECT_EQ(count_summaries(outcome.err), 0) << outcome.err;
    std::vector<memusage::Record> records = read_records(data);
    ASSERT_GE(records.size(), 2u);
    EXPECT_EQ(records[1].heap, 100u) << "the data file is still completed";
}

}  // namespace
}  // namespace collector_test
