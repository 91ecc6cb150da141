// SPEC section 2, the timer: a program with its own SIGPROF use keeps it working while the
// collector samples, and one that ignores SIGPROF is not killed by the collector's timer.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace collector_test
