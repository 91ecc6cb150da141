// SPDX-License-Identifier: MIT
// The stack column: measured from where the program starts, so both an allocation main
// makes itself and one 64 KiB deeper show their depth (a start placed too low once
// flattened every record of a single-threaded program to zero).
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

TEST(Stack, EachRecordShowsHowDeepItsCallWas) {
    Scratch scratch;
    std::string data = scratch / "profile";
    Outcome outcome = run({fixture("collector_fixture_deep_stack")},
                          {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::vector<memusage::Record> records = read_records(data);
    const memusage::Record* shallow = nullptr;
    const memusage::Record* deep = nullptr;
    for (size_t i = memusage::kHeaderRecords; i < records.size(); ++i) {
        if (records[i].heap == 111 && shallow == nullptr) shallow = &records[i];
        if (records[i].heap == 111 + 222 && deep == nullptr) deep = &records[i];
    }
    ASSERT_NE(shallow, nullptr);
    ASSERT_NE(deep, nullptr);
    EXPECT_GT(shallow->stack, 0u) << "main's own call is below where the program started";
    EXPECT_GE(deep->stack, shallow->stack + 64 * 1024);
    EXPECT_LT(deep->stack, shallow->stack + 80 * 1024);
    EXPECT_EQ(parse_summary(outcome.err).stack_peak, records[1].stack);
    EXPECT_GE(records[1].stack, deep->stack);
}

}  // namespace
}  // namespace collector_test
