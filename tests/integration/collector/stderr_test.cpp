// SPEC sections 5 and 9: the summary reaches the original standard error even when the
// program closes or redirects its own before exiting (glibc prints nothing then).
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

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

INSTANTIATE_TEST_SUITE_P(Collector, StderrTakenAway, ::testing::Values("fclose", "close", "dup2"));

}  // namespace
}  // namespace collector_test
