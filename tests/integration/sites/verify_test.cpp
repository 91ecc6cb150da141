// SPDX-License-Identifier: MIT
// MEMUSAGE_SITES_VERIFY: every stack the collector takes along unwind rows is compared with
// libunwind's, and the run aborts on any difference, printing both. Run on the fixtures
// whose stacks leave the usual call order and on real programs: each test fails if one
// walked stack differed, or if none was walked (then nothing was compared).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

// The number after `words` in the run's summary; 0 without one.
uint64_t summary_figure(const Outcome& run, const std::string& words) {
    size_t at = run.err.find(words);
    return at == std::string::npos
               ? 0
               : std::strtoull(run.err.c_str() + at + words.size(), nullptr, 10);
}

// The number of walked stacks the run's summary says were compared, and of them those the
// stack memo gave.
uint64_t stacks_compared(const Outcome& run) { return summary_figure(run, "sites verified: "); }
uint64_t stacks_recalled(const Outcome& run) {
    return summary_figure(run, "stacks walked along unwind rows (");
}
// Those that took their outer frames from the thread's last walk.
uint64_t stacks_resumed(const Outcome& run) { return summary_figure(run, "from the stack memo, "); }

Outcome expect_walked_as_libunwind(const std::vector<std::string>& argv, uint64_t at_least,
                                   const std::vector<std::string>& extra = {}) {
    Scratch scratch;
    std::vector<std::string> environment = {"MEMUSAGE_SITES_VERIFY=1"};
    environment.insert(environment.end(), extra.begin(), extra.end());
    Outcome run = run_with_sites(argv, scratch / "run.sites", environment);
    EXPECT_EQ(run.err.find("differ"), std::string::npos) << run.err;
    EXPECT_TRUE(run.exited_zero()) << "status " << run.status << "\n" << run.err;
    EXPECT_GE(stacks_compared(run), at_least) << run.err;
    return run;
}

TEST(SitesVerify, LongjmpSwapcontextSignalsAndUnloadedLibraries) {
    expect_walked_as_libunwind(
        {fixture("sites_fixture_control_flow"), library("debug"), library("nodebug")}, 1000);
}

#ifdef ROWS_LIBRARIES
// A library unloaded and another loaded at its address, with the same return address in
// a frame of another shape: the rows kept for the first must not be used for the second.
TEST(SitesVerify, RowsOfUnloadedCodeAreNotUsedForCodeLoadedAtTheirAddress) {
    expect_walked_as_libunwind(
        {fixture("sites_fixture_control_flow"), fixture("libsites_library_frame_pointer.so"),
         fixture("libsites_library_stack_pointer.so")},
        1000);
}
#endif

// Four paths to one allocation at the same stack pointer, each taken twice in a row: the
// memo gives the second call's stack, and must not give one path's for another's.
TEST(SitesVerify, StacksAlikeOnTopWithAndWithoutFramePointers) {
    for (const char* build : {"sites_fixture_alike_stacks", "sites_fixture_alike_stacks_no_fp"}) {
        SCOPED_TRACE(build);
        Outcome run = expect_walked_as_libunwind({fixture(build), "1000"}, 8000);
        EXPECT_GE(stacks_recalled(run), 4000u) << run.err;
    }
}

// The same four paths in a pseudo-random order: the memo tries first the entry that came
// after the latest one, often another path's at the same stack pointer, and must find the
// right one (verified whole) or walk.
TEST(SitesVerify, StacksAlikeOnTopInNoOrder) {
    for (const char* build : {"sites_fixture_alike_stacks", "sites_fixture_alike_stacks_no_fp"}) {
        SCOPED_TRACE(build);
        Outcome run = expect_walked_as_libunwind({fixture(build), "1000", "shuffled"}, 8000);
        EXPECT_GE(stacks_recalled(run), 7000u) << run.err;
    }
}

TEST(SitesVerify, CppExceptions) {
    expect_walked_as_libunwind({fixture("sites_fixture_exceptions"), "200"}, 200);
}

TEST(SitesVerify, SignalHandlersInterruptingTheCollector) {
    expect_walked_as_libunwind({fixture("sites_fixture_signal_handler"), "5000"}, 5000);
}

TEST(SitesVerify, ManyThreads) {
    expect_walked_as_libunwind({fixture("sites_fixture_live_threads"), "50"}, 50 * 8);
}

TEST(SitesVerify, Sqlite3) {
    expect_walked_as_libunwind(
        {"/usr/bin/sqlite3", ":memory:", ".read " BENCH_DIR "/sqlite_workload.sql"}, 100000);
}

// A parser's deep stacks (15 to 20 frames at each allocation): sqlite3 running INSERT
// statements one by one in one transaction, then an index and a group by. Each statement
// allocates from the same round of about 20 stacks, several at the same stack pointer: the
// memo keeps the whole round and recalls nearly every stack; most of the others stop where
// they meet the thread's last walk, and take its outer frames from it.
TEST(SitesVerify, Sqlite3InsertsOneByOneRecalledOrTakeTheOuterFramesFromTheLastWalk) {
    Scratch scratch;
    std::string script = scratch / "inserts.sql";
    {
        std::ofstream out(script);
        out << "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, value REAL);\n"
               "BEGIN;\n";
        for (int i = 1; i <= 3000; ++i)
            out << "INSERT INTO t(name, grp, value) VALUES ('name-" << i << "', " << i % 97 << ", "
                << i << ".5);\n";
        out << "COMMIT;\nCREATE INDEX t_name ON t(name);\n"
               "SELECT grp, count(*), sum(value), max(name) FROM t GROUP BY grp;\n";
    }
    Outcome run =
        expect_walked_as_libunwind({"/usr/bin/sqlite3", ":memory:", ".read " + script}, 30000);
    EXPECT_GE(stacks_recalled(run), stacks_compared(run) / 10 * 9) << run.err;
    EXPECT_GE(stacks_resumed(run), (stacks_compared(run) - stacks_recalled(run)) / 2) << run.err;
}

// PYTHONMALLOC=malloc: every object the interpreter makes goes through malloc, from the
// many call stacks of its evaluation loop, the json module's C code and the dict code.
TEST(SitesVerify, Python3Json) {
    expect_walked_as_libunwind(
        {"/usr/bin/python3", "-c",
         "import json\n"
         "rows = [{'id': i, 'name': 'name%d' % i, 'value': i * 1.5} for i in range(20000)]\n"
         "assert json.loads(json.dumps(rows)) == rows\n"},
        100000, {"PYTHONMALLOC=malloc"});
}

}  // namespace
}  // namespace sites_test
