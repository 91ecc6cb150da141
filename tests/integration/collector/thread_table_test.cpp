// SPDX-License-Identifier: MIT
// The per-thread table (MEMUSAGE_THREADS): a row per thread with its name and its
// own calls, threads that ended early included.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "collector_run.h"

namespace collector_test {
namespace {

struct TableRow {
    long tid = 0;
    uint64_t calls = 0, allocated = 0, freed = 0, stack_peak = 0;
    int64_t net = 0;
};

// The rows after "Threads:", keyed by name; fails on a name seen twice.
std::map<std::string, TableRow> thread_table(const std::string& err, size_t& count) {
    std::map<std::string, TableRow> rows;
    size_t at = err.find("Threads: ");
    EXPECT_NE(at, std::string::npos) << err;
    if (at == std::string::npos) return rows;
    std::istringstream lines(err.substr(at));
    std::string line;
    std::getline(lines, line);
    count = std::stoul(line.substr(9));
    std::getline(lines, line);  // the column heads
    while (std::getline(lines, line) && !line.empty()) {
        std::istringstream fields(line);
        TableRow row;
        std::string name;
        fields >> row.tid >> name >> row.calls >> row.allocated >> row.freed >> row.net >>
            row.stack_peak;
        EXPECT_FALSE(fields.fail()) << line;
        EXPECT_EQ(rows.count(name), 0u) << "two rows named '" << name << "'\n" << err;
        rows[name] = row;
    }
    return rows;
}

TEST(ThreadTable, ARowPerThreadWithItsOwnWork) {
    Outcome outcome = run({fixture("collector_fixture_named_threads")},
                          {"MEMUSAGE_THREADS=1", "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    size_t count = 0;
    std::map<std::string, TableRow> rows = thread_table(outcome.err, count);
    EXPECT_EQ(count, rows.size()) << outcome.err;
    // What each thread did itself, and what glibc's thread teardown adds to every
    // thread alike (calls without bytes), which "early" shows.
    ASSERT_GE(rows["early"].calls, 2u);
    const uint64_t teardown = rows["early"].calls - 2;
    EXPECT_LE(teardown, 4u);
    EXPECT_EQ(rows["early"].allocated, 50u);
    EXPECT_EQ(rows["early"].freed, 50u);
    EXPECT_EQ(rows["reader"].calls, 20u + teardown);
    EXPECT_EQ(rows["reader"].allocated, 1000u);
    EXPECT_EQ(rows["reader"].net, 0);
    EXPECT_EQ(rows["writer"].calls, 5u + teardown);
    EXPECT_EQ(rows["writer"].net, 1000);
    if (rows.count("idle") != 0) {
        EXPECT_EQ(rows["idle"].allocated, 0u);
    }
    // The main thread keeps its block and frees the writer's five; creating threads
    // also allocates their thread-local storage in it.
    EXPECT_GE(rows["boss"].freed, 1000u);
    EXPECT_GE(rows["boss"].net, 12345 - 1000);
    EXPECT_GT(rows["boss"].stack_peak, 0u);
    // Rows come in the order the threads began: boss, early, then the three others.
    EXPECT_LT(outcome.err.find(" boss "), outcome.err.find(" early "));
    EXPECT_LT(outcome.err.find(" early "), outcome.err.find(" reader "));
}

TEST(ThreadTable, OnlyWhenAskedFor) {
    Outcome outcome = run({fixture("collector_fixture_named_threads")}, {"MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_EQ(outcome.err.find("Threads:"), std::string::npos);
}

}  // namespace
}  // namespace collector_test
