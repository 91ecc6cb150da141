// SPDX-License-Identifier: MIT
// A program with an allocator of its own (fixtures/own_allocator.c): the collector sees
// only the maps that allocator makes. Nothing the collector does on the way in from a
// call may allocate or wait for a lock the program holds: the program maps under its
// allocator's lock, and its threads' first calls come from there.
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

constexpr int kThreads = 4, kRounds = 50;

TEST(OwnAllocator, ThreadsMappingUnderTheProgramsLockRunToTheEnd) {
    for (const std::string& data : {std::string(), std::string("data")}) {
        Scratch scratch;
        std::vector<std::string> env = {"MEMUSAGE_TRACE_MMAP=1", "MEMUSAGE_COLOR=never"};
        if (!data.empty()) env.push_back("MEMUSAGE_OUTPUT=" + (scratch / data));
        Outcome outcome = run_bounded(30, {fixture("collector_fixture_own_allocator")}, env);
        ASSERT_FALSE(outcome.timed_out) << "the program hangs (data file: " << !data.empty() << ")";
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
        // Each round maps twice (malloc, realloc) and unmaps twice.
        Summary s = parse_summary(outcome.err);
        EXPECT_GE(s.row("mmap(a)").calls, 2u * kThreads * kRounds) << outcome.err;
        EXPECT_GE(s.row("munmap").calls, 2u * kThreads * kRounds) << outcome.err;
    }
}

// Its malloc is not the C library's: the summary, all zeros, says why.
TEST(OwnAllocator, TheSummarySaysTheProgramsMallocIsNotCounted) {
    Outcome outcome = run({fixture("collector_fixture_own_allocator")}, {"MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 0u) << outcome.err;
    EXPECT_NE(outcome.err.find("malloc is not the C library's but "), std::string::npos)
        << outcome.err;
    EXPECT_NE(outcome.err.find("collector_fixture_own_allocator's own"), std::string::npos)
        << outcome.err;
    EXPECT_NE(outcome.err.find("-m counts the memory it maps"), std::string::npos) << outcome.err;
    // A program using the C library's malloc gets no such line.
    Outcome plain = run({fixture("collector_fixture_calls")}, {"MEMUSAGE_COLOR=never"});
    EXPECT_EQ(plain.err.find("malloc is not"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace collector_test
