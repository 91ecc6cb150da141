// SPDX-License-Identifier: MIT
// memusagestat --diff on two builds of one source (sites_diff.c: the second has a function
// before the others, so every address moved, and one site allocates 2000 bytes more):
// sites match by function and line, only the grown one is listed, and --fail-if-grown
// turns growth into exit status 3.
#include <gtest/gtest.h>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::kOurMemusagestat;
using collector_test::Outcome;
using collector_test::Scratch;

const std::string kSource = "sites_diff.c";

class Diff : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const auto& [build, sites] :
             {std::pair{"sites_fixture_diff", before_}, {"sites_fixture_diff_grown", after_}}) {
            Outcome run = run_with_sites({fixture(build)}, sites);
            ASSERT_TRUE(run.exited_zero()) << run.err;
        }
        // The builds differ in layout: the same function is at another address.
        Outcome before =
            collector_test::run({"/usr/bin/nm", fixture("sites_fixture_diff")}, {}, "");
        Outcome after =
            collector_test::run({"/usr/bin/nm", fixture("sites_fixture_diff_grown")}, {}, "");
        auto address = [](const std::string& nm) {
            size_t at = nm.find(" T make_buffer\n");
            return at == std::string::npos ? std::string() : nm.substr(nm.rfind('\n', at) + 1, 16);
        };
        ASSERT_FALSE(address(before.out).empty()) << before.out;
        ASSERT_NE(address(before.out), address(after.out));
    }
    Outcome diff(const std::vector<std::string>& more = {}) {
        std::vector<std::string> argv = {kOurMemusagestat, "--diff", before_, after_};
        argv.insert(argv.end(), more.begin(), more.end());
        return collector_test::run(argv, {}, "");
    }

    Scratch scratch_;
    std::string before_ = scratch_ / "before.sites", after_ = scratch_ / "after.sites";
};

TEST_F(Diff, TotalsAndOnlyTheGrownSiteMatchedByLineNotAddress) {
    Outcome out = diff();
    ASSERT_TRUE(out.exited_zero()) << out.err;
    const std::string& text = out.out;
    EXPECT_NE(
        text.find("  heap peak                        5300           7300   +2000 (+37.7%)\n"),
        std::string::npos)
        << text;
    EXPECT_NE(
        text.find("  bytes leaked                     4000           6000   +2000 (+50.0%)\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("  calls (blocks)                      9              9   0\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  temporary blocks                    5              5   0\n"),
              std::string::npos)
        << text;
    const std::string grown = "  #1 +2000 bytes (4000 -> 6000)\n       at make_buffer (" +
                              location(kSource, "buffer") + ")\n";
    for (const char* ranking :
         {"Change in bytes held at the heap peak:\n",
          "Change in bytes still allocated at exit (leaks):\n", "Change in bytes allocated:\n"})
        EXPECT_NE(text.find(ranking + grown), std::string::npos) << ranking << text;
    EXPECT_NE(text.find("Change in calls (blocks allocated):\n   none\n"), std::string::npos)
        << text;
    // Matched by line: the moved sites are not listed as new or gone.
    EXPECT_EQ(text.find("new"), std::string::npos) << text;
    EXPECT_EQ(text.find("gone"), std::string::npos) << text;
    EXPECT_EQ(text.find("#2"), std::string::npos) << text;
}

TEST_F(Diff, FailIfGrownExitsThreeBeyondAPercentageOrASize) {
    Outcome percent = diff({"--fail-if-grown=10%"});
    EXPECT_EQ(WEXITSTATUS(percent.status), 3) << percent.out << percent.err;
    EXPECT_NE(
        percent.out.find("The heap peak grew by 2000 bytes: more than 10% (--fail-if-grown)\n"),
        std::string::npos)
        << percent.out;
    Outcome within = diff({"--fail-if-grown=40%"});
    EXPECT_TRUE(within.exited_zero()) << within.out << within.err;
    EXPECT_NE(within.out.find("grew by 2000 bytes: within 40%"), std::string::npos) << within.out;
    Outcome size = diff({"--fail-if-grown=1k"});
    EXPECT_EQ(WEXITSTATUS(size.status), 3) << size.out << size.err;
    Outcome larger = diff({"--fail-if-grown=2000"});
    EXPECT_TRUE(larger.exited_zero()) << "2000 bytes is not more than 2000\n" << larger.out;
    // The other way round, the peak shrank: never beyond a limit.
    Outcome shrunk = collector_test::run(
        {kOurMemusagestat, "--diff", after_, before_, "--fail-if-grown=0%"}, {}, "");
    EXPECT_TRUE(shrunk.exited_zero()) << shrunk.out << shrunk.err;
    EXPECT_NE(shrunk.out.find("  #1 -2000 bytes (6000 -> 4000)\n"), std::string::npos)
        << shrunk.out;
}

TEST_F(Diff, BadInputIsAMessageAndStatusOne) {
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{kOurMemusagestat, "--diff", before_},
          {kOurMemusagestat, "--diff", before_, after_, "--fail-if-grown=ten"},
          {kOurMemusagestat, "--diff", before_, after_, "--fail-if-grown=%"},
          {kOurMemusagestat, "--diff", before_, scratch_ / "missing"},
          {kOurMemusagestat, "--diff", before_, fixture("sites_fixture_diff")},
          {kOurMemusagestat, "--sites=" + before_, "--fail-if-grown=10%"}}) {
        Outcome out = collector_test::run(argv, {}, "");
        EXPECT_EQ(out.signal(), 0);
        EXPECT_EQ(WEXITSTATUS(out.status), 1) << argv.back() << "\n" << out.err;
        EXPECT_NE(out.err.find("memusagestat: "), std::string::npos) << out.err;
    }
}

TEST_F(Diff, DataFilesGiveTheirTotals) {
    std::string data_before = scratch_ / "before.data", data_after = scratch_ / "after.data";
    for (const auto& [build, data] :
         {std::pair{"sites_fixture_diff", data_before}, {"sites_fixture_diff_grown", data_after}}) {
        Outcome run = collector_test::run({fixture(build)}, {"MEMUSAGE_OUTPUT=" + data});
        ASSERT_TRUE(run.exited_zero()) << run.err;
    }
    Outcome out = collector_test::run(
        {kOurMemusagestat, "--diff", data_before, data_after, "--fail-if-grown=1000"}, {}, "");
    EXPECT_EQ(WEXITSTATUS(out.status), 3) << out.out << out.err;
    EXPECT_NE(
        out.out.find("  heap peak                        5300           7300   +2000 (+37.7%)\n"),
        std::string::npos)
        << out.out;
    EXPECT_NE(out.out.find("  stack peak "), std::string::npos) << out.out;
    EXPECT_NE(out.out.find("data files hold totals only"), std::string::npos) << out.out;
    Outcome mixed = collector_test::run({kOurMemusagestat, "--diff", data_before, after_}, {}, "");
    EXPECT_EQ(WEXITSTATUS(mixed.status), 1) << mixed.out;
    EXPECT_NE(mixed.err.find("two sites files or two data files"), std::string::npos) << mixed.err;
}

// One comment line added at the top of the source moves every line of it by one, and no call
// within its function: every site matches the same site, nothing changed.
TEST(DiffIdentity, ACommentLineAtTheTopChangesNothing) {
    Scratch scratch;
    const std::string before = scratch / "before.sites", after = scratch / "after.sites";
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_diff")}, before).exited_zero());
    ASSERT_TRUE(run_with_sites({fixture("commented/sites_fixture_diff")}, after).exited_zero());
    // The moved lines are in the reports: the sites' file:line differ.
    Outcome report = report_of(after);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    const std::string buffer = location(kSource, "buffer");
    const int line = std::stoi(buffer.substr(buffer.rfind(':') + 1));
    EXPECT_NE(report.out.find("commented/sites_diff.c:" + std::to_string(line + 1) + ")"),
              std::string::npos)
        << report.out;
    Outcome out = collector_test::run({kOurMemusagestat, "--diff", before, after}, {}, "");
    ASSERT_TRUE(out.exited_zero()) << out.out << out.err;
    for (const char* ranking : {"Change in bytes held at the heap peak:\n   none\n",
                                "Change in bytes still allocated at exit (leaks):\n   none\n",
                                "Change in bytes allocated:\n   none\n",
                                "Change in calls (blocks allocated):\n   none\n"})
        EXPECT_NE(out.out.find(ranking), std::string::npos) << ranking << out.out;
    EXPECT_EQ(out.out.find("different programs"), std::string::npos) << out.out;
}

TEST(DiffIdentity, RunsOfDifferentProgramsAreSaidToBe) {
    Scratch scratch;
    const std::string before = scratch / "before.sites", after = scratch / "after.sites";
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_diff")}, before).exited_zero());
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_other")}, after).exited_zero());
    Outcome out = collector_test::run({kOurMemusagestat, "--diff", before, after}, {}, "");
    ASSERT_TRUE(out.exited_zero()) << out.out << out.err;
    EXPECT_NE(out.out.find("Warning: the runs are of different programs (sites_fixture_diff, "
                           "sites_fixture_other)"),
              std::string::npos)
        << out.out;
}

}  // namespace
}  // namespace sites_test
