// SPDX-License-Identifier: MIT
// memusage --long-lived and memusagestat --long-lived: the sites of blocks that lived longer
// than a duration, and durations that are refused.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

TEST(LongLived, BadDurationsAreRefusedBeforeTheProgramRuns) {
    Scratch scratch;
    for (const char* bad : {"5", "1.5", "-2s", "2x", "ms", "1 s"}) {
        Outcome run =
            run_memusage({std::string("--long-lived=") + bad, fixture("sites_fixture_no_leaks")},
                         scratch.path());
        EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 1) << bad;
        EXPECT_EQ(run.out, "") << "the program did not run";
        EXPECT_NE(run.err.find(std::string("invalid duration '") + bad + "' for '--long-lived'"),
                  std::string::npos)
            << run.err;
        Outcome stat =
            report_of(scratch / "sites", {"--events=x", std::string("--long-lived=") + bad});
        EXPECT_TRUE(WIFEXITED(stat.status) && WEXITSTATUS(stat.status) == 1) << bad;
        EXPECT_NE(stat.err.find(std::string("invalid duration '") + bad + "'"), std::string::npos)
            << stat.err;
    }
    Outcome no_events = report_of(scratch / "sites", {"--long-lived=1s"});
    EXPECT_NE(no_events.err.find("--long-lived needs --events"), std::string::npos)
        << no_events.err;
}

}  // namespace
}  // namespace sites_test
