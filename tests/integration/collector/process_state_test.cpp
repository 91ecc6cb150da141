// SPDX-License-Identifier: MIT
// The collector leaves the process state the program
// can observe as the program set it: signal masks (a blocked SIGFPE sent by kill() stays
// pending), handlers' masks and dispositions read back, errno on every call that succeeds,
// and the program's descriptors. Each check runs bare, with a data file written on every
// event (with the profiling timer), and with mmap tracing and an event recording.
#include <gtest/gtest.h>

#include <tuple>

#include "collector_run.h"

namespace collector_test {
namespace {

std::vector<std::string> environment_for(const std::string& way, const Scratch& scratch) {
    if (way == "data_file")
        return {"MEMUSAGE_OUTPUT=" + scratch / "profile", "MEMUSAGE_BUFFER_SIZE=1"};
    if (way == "mmap_and_events")
        return {"MEMUSAGE_NO_TIMER=1", "MEMUSAGE_TRACE_MMAP=1",
                "MEMUSAGE_EVENTS=" + scratch / "events"};
    return {"MEMUSAGE_NO_TIMER=1"};
}

class ProcessState : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ProcessState, IsAsTheProgramSetIt) {
    const auto& [check, way] = GetParam();
    // Bare, without the collector, each check holds: the fixture itself is right.
    Outcome bare = run_bounded(20, {fixture("collector_fixture_process_state"), check}, {}, "");
    ASSERT_TRUE(bare.exited_zero()) << "bare: status " << bare.status << "\n" << bare.err;
    Scratch scratch;
    Outcome outcome = run_bounded(20, {fixture("collector_fixture_process_state"), check},
                                  environment_for(way, scratch));
    EXPECT_TRUE(outcome.exited_zero())
        << "status " << outcome.status << " (exit " << (outcome.status >> 8) << ", signal "
        << outcome.signal() << ")\n"
        << outcome.err;
    EXPECT_EQ(count_summaries(outcome.err), 1) << outcome.err;
}

INSTANTIATE_TEST_SUITE_P(
    Collector, ProcessState,
    ::testing::Combine(::testing::Values("sigprocmask_pending", "thread_mask_pending",
                                         "sa_mask_readback", "dispositions", "errno",
                                         "thread_errno", "descriptors"),
                       ::testing::Values("plain", "data_file", "mmap_and_events")),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
}  // namespace collector_test
