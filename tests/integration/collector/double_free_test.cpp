// SPDX-License-Identifier: MIT
// A block's second free reaches glibc's checks and dies of the program's usual diagnostic
// every time (glibc's tst-tcfree1): freeing hands our header to glibc's lists, so the
// second free must find the block by the mark the first one left. With allocation sites on,
// the same for blocks with the longer header.
#include <gtest/gtest.h>
#include <signal.h>

#include "collector_run.h"

namespace collector_test {
namespace {

constexpr int kRuns = 20;  // the unmarked header failed differently from run to run

struct DoubleFree {
    std::string name;
    std::vector<std::string> args;
    std::vector<std::string> env;
};
void PrintTo(const DoubleFree& double_free, std::ostream* out) { *out << double_free.name; }

std::string diagnostic_of(const Outcome& outcome) {
    size_t end = outcome.err.find('\n');
    return outcome.err.substr(0, end);
}

// glibc words a double free of a block outside its per-thread cache after the block's
// neighbour ("double free or corruption (!prev)", "(top)", ...): our header shifts the
// blocks, so the neighbour, and that word, can differ from the bare run's. The check
// that fires is the same.
std::string check_of(const std::string& diagnostic) {
    const std::string family = "double free or corruption";
    return diagnostic.starts_with(family) ? family : diagnostic;
}

class SecondFree : public ::testing::TestWithParam<DoubleFree> {};

TEST_P(SecondFree, AbortsWithGlibcsDiagnosticEveryTime) {
    std::vector<std::string> argv = {fixture("collector_fixture_double_free")};
    argv.insert(argv.end(), GetParam().args.begin(), GetParam().args.end());
    Outcome bare = run(argv, GetParam().env, "");
    ASSERT_EQ(bare.signal(), SIGABRT) << bare.err;
    std::string expected = diagnostic_of(bare);
    ASSERT_NE(expected.find("double free"), std::string::npos) << expected;

    Scratch scratch;
    std::vector<std::string> traced = GetParam().env;
    traced.insert(traced.end(), {"MEMUSAGE_TRACE_MMAP=1", "MEMUSAGE_OUTPUT=" + scratch / "data"});
    // Allocation sites: blocks with a site have the 32-byte header.
    std::vector<std::string> sited = GetParam().env;
    sited.push_back("MEMUSAGE_SITES=" + scratch / "sites");
    for (const auto& env : {GetParam().env, traced, sited}) {
        for (int i = 0; i < kRuns; ++i) {
            Outcome outcome = run(argv, env);
            ASSERT_EQ(outcome.signal(), SIGABRT) << "run " << i << ": " << outcome.err;
            ASSERT_EQ(check_of(diagnostic_of(outcome)), check_of(expected))
                << "run " << i << ": " << diagnostic_of(outcome);
        }
    }
}

const std::vector<std::string> kNoCache = {"GLIBC_TUNABLES=glibc.malloc.tcache_count=0"};

INSTANTIATE_TEST_SUITE_P(
    Collector, SecondFree,
    ::testing::Values(DoubleFree{"Malloc32", {"malloc", "32"}, {}},
                      DoubleFree{"Malloc0", {"malloc", "0"}, {}},
                      DoubleFree{"Malloc7", {"malloc", "7"}, {}},
                      DoubleFree{"Malloc1000", {"malloc", "1000"}, {}},
                      DoubleFree{"Aligned32", {"aligned", "32", "100"}, {}},
                      DoubleFree{"Aligned64", {"aligned", "64", "100"}, {}},
                      DoubleFree{"ReallocToZero", {"realloc-zero"}, {}},
                      DoubleFree{"Unsorted", {"unsorted"}, {}},
                      DoubleFree{"FastbinWithoutCache", {"malloc", "32"}, kNoCache},
                      DoubleFree{"UnsortedWithoutCache", {"unsorted"}, kNoCache}),
    [](const ::testing::TestParamInfo<DoubleFree>& info) { return info.param.name; });

}  // namespace
}  // namespace collector_test
