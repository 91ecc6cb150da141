// SPDX-License-Identifier: MIT
// The summary: on programs that use only malloc, calloc, realloc and free, our summary
// is glibc's byte for byte (colour forced on), the stack peak figure aside.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector_run.h"
#include "support/scratch_directory.h"

namespace collector_test {
namespace {

// Both runs get the same environment: programs such as perl copy it onto the heap, so
// an extra variable in one run would change its numbers. PERL_HASH_SEED fixes perl's
// hash layout, which otherwise changes from run to run.
const std::vector<std::string> kSameEnvironment = {"MEMUSAGE_COLOR=always", "PERL_HASH_SEED=0"};

// The two libraries are preloaded through paths of the same length, for the same
// reason: LD_PRELOAD itself is part of the environment programs copy.
class SameLengthPaths {
  public:
    SameLengthPaths() {
        glibc_ = link("g", kGlibcCollector);
        ours_ = link("o", kOurCollector);
    }
    const std::string& glibc() const { return glibc_; }
    const std::string& ours() const { return ours_; }

  private:
    std::string link(const char* sub, const std::string& target) {
        std::string path = dir_.file(sub);
        mkdir(path.c_str(), 0700);
        path += "/libmemusage.so";
        EXPECT_EQ(symlink(target.c_str(), path.c_str()), 0) << path;
        return path;
    }
    test_support::ScratchDirectory dir_{"memusage-compat"};
    std::string glibc_, ours_;
};

void expect_same_summary_as_glibc(const std::vector<std::string>& argv) {
    if (!glibc_collector_present()) GTEST_SKIP() << "glibc's libmemusage.so is not installed";
    SameLengthPaths libraries;
    Outcome glibc = run(argv, kSameEnvironment, libraries.glibc());
    Outcome ours = run(argv, kSameEnvironment, libraries.ours());
    ASSERT_TRUE(glibc.exited_zero()) << glibc.err;
    ASSERT_TRUE(ours.exited_zero()) << ours.err;
    ASSERT_EQ(count_summaries(glibc.err), 1) << "glibc printed no summary to compare with";
    EXPECT_EQ(ours.out, glibc.out);
    EXPECT_EQ(without_stack_peak(ours.err), without_stack_peak(glibc.err));
}

TEST(Compatibility, FixtureWithEdgeCasesMatchesGlibcByteForByte) {
    expect_same_summary_as_glibc({fixture("collector_fixture_calls")});
}

// The same without the impossible requests, which add up past 4 GiB, where glibc's totals
// wrap on 32-bit machines: byte for byte on every machine.
TEST(Compatibility, PossibleRequestsMatchGlibcByteForByte) {
    expect_same_summary_as_glibc({fixture("collector_fixture_calls"), "possible"});
}

TEST(Compatibility, FixtureNumbersAreTheExpectedOnes) {
    Outcome ours = run({fixture("collector_fixture_calls")});
    ASSERT_TRUE(ours.exited_zero()) << ours.err;
    Summary s = parse_summary(ours.err);
    // malloc(100), malloc(1 << 46) failing, 70000, 40 small ones, 12345.
    EXPECT_EQ(s.row("malloc").calls, 44u);
    EXPECT_EQ(s.row("malloc").failed, 1u);
    EXPECT_EQ(s.row("calloc").calls, 2u);
    EXPECT_EQ(s.row("calloc").failed, 1u);
    // grow, shrink, same size, from NULL, to 0, failing growth.
    EXPECT_EQ(s.row("realloc").calls, 6u);
    EXPECT_EQ(s.row("realloc").failed, 1u);
    EXPECT_EQ(s.realloc_free, 1);
    EXPECT_EQ(s.realloc_dec, 1);
    // 40 small, large, a, b, and free(NULL), which counts as a call.
    EXPECT_EQ(s.row("free").calls, 44u);
    // 70000 and the three failed requests: the histogram counts requests, failed or not.
    EXPECT_EQ(s.histogram.at("large"), 4u);
    EXPECT_FALSE(s.has_row("aligned"));
}

TEST(Compatibility, PerlInterpreterMatchesGlibc) {
    expect_same_summary_as_glibc(
        {"/usr/bin/perl", "-e",
         "my %h; $h{$_} = 'x' x ($_ % 97) for 1..3000; my @k = sort keys %h; "
         "print scalar(@k), qq{\\n};"});
}

TEST(Compatibility, DatabaseShellMatchesGlibc) {
    if (access("/usr/bin/sqlite3", X_OK) == 0) {
        expect_same_summary_as_glibc(
            {"/usr/bin/sqlite3", ":memory:",
             "create table t(a integer, b text); "
             "with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) "
             "insert into t select i, printf('row %d', i) from n; "
             "select count(*), sum(a), max(b) from t;"});
    } else {
        expect_same_summary_as_glibc({"/usr/bin/psql", "--version"});
    }
}

TEST(Compatibility, ArchiverMatchesGlibc) {
    Scratch scratch;
    std::string input = scratch / "input.txt";
    FILE* file = fopen(input.c_str(), "w");
    ASSERT_NE(file, nullptr);
    for (int i = 0; i < 20000; ++i) fprintf(file, "line %d of the archived file\n", i);
    fclose(file);
    // Not tar, gzip, xz or bzip2: they close standard error at exit, so glibc prints no
    // summary for them; gzip prints one but allocates nothing.
    if (access("/usr/bin/zip", X_OK) == 0)
        expect_same_summary_as_glibc({"/usr/bin/zip", "-q", "-", input});
    else
        expect_same_summary_as_glibc({"/usr/bin/zstd", "-c", input});
}

}  // namespace
}  // namespace collector_test
