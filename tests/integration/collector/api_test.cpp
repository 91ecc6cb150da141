// SPDX-License-Identifier: MIT
// The program's own view (issue: in-process API): <memusage/memusage.h> with and
// without the collector, and a program written for malloc_count run unchanged.
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

TEST(Api, WithoutTheCollectorNothingIsTrackedAndTheProgramRuns) {
    Outcome outcome = run({fixture("collector_fixture_api_user")}, {}, "");
    EXPECT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(outcome.out, "tracking 0\n");
}

TEST(Api, UnderTheCollectorTheFiguresAreExact) {
    Outcome outcome = run({fixture("collector_fixture_api_user")}, {"MEMUSAGE_COLOR=never"});
    EXPECT_TRUE(outcome.exited_zero()) << outcome.out << outcome.err;
    ASSERT_EQ(outcome.out.substr(0, 11), "tracking 1\n");
    // memusage_print_summary(1) printed the summary as it stood, to standard output.
    EXPECT_NE(outcome.out.find("Memory usage summary:"), std::string::npos) << outcome.out;
    EXPECT_EQ(count_summaries(outcome.err), 1);
}

TEST(Api, MallocCountProgramsRunUnchanged) {
    Outcome outcome = run({fixture("collector_fixture_malloc_count_user")});
    EXPECT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_NE(outcome.err.find("memusage: current "), std::string::npos) << outcome.err;
    EXPECT_EQ(outcome.out.substr(0, 6), "stack ");
}

}  // namespace
}  // namespace collector_test
