// SPDX-License-Identifier: MIT
// memusage --sites[=N]: the report comes after the summary, which is the same as without
// --sites, as is the data file; the private sites file is gone afterwards.
#include <gtest/gtest.h>

#include <filesystem>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

Outcome run_driver(const std::vector<std::string>& arguments, const Scratch& scratch) {
    std::vector<std::string> argv = {kOurMemusage};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return collector_test::run(argv, {"TMPDIR=" + scratch.path()}, "");
}

TEST(SitesDriver, ReportFollowsAnUnchangedSummary) {
    Scratch scratch;
    Outcome plain = run_driver({"--color=never", fixture("sites_fixture_cpp")}, scratch);
    Outcome sited = run_driver({"--color=never", "--sites", fixture("sites_fixture_cpp")}, scratch);
    ASSERT_TRUE(plain.exited_zero()) << plain.err;
    ASSERT_TRUE(sited.exited_zero()) << sited.err;
    EXPECT_EQ(sited.out, plain.out);
    size_t report_at = sited.err.find("\nAllocation sites: ");
    ASSERT_NE(report_at, std::string::npos) << sited.err;
    EXPECT_EQ(collector_test::without_stack_peak(sited.err.substr(0, report_at)),
              collector_test::without_stack_peak(plain.err));
    std::string report = sited.err.substr(report_at + 1);
    EXPECT_NE(report.find("at leak_through_new() (" + location("sites_new.cpp", "new") + ")"),
              std::string::npos)
        << report;
    EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "the private sites file is gone";
}

TEST(SitesDriver, CountLimitsEachRanking) {
    Scratch scratch;
    Outcome sited =
        run_driver({"--sites=2", fixture("sites_fixture_c"), library("debug")}, scratch);
    ASSERT_TRUE(sited.exited_zero()) << sited.err;
    std::vector<Entry> entries = entries_of(sited.err);
    // Three rankings of bytes, and the temporary blocks' (the fixture's runtime frees one).
    size_t of_bytes = 0;
    for (const Entry& entry : entries) of_bytes += entry.section.starts_with("Bytes ");
    EXPECT_EQ(of_bytes, 6u) << sited.err;
    EXPECT_LE(entries.size() - of_bytes, 2u) << sited.err;
    EXPECT_NE(sited.err.find("(top 2 of "), std::string::npos) << sited.err;
}

TEST(SitesDriver, TheDataFileIsTheSameWithSites) {
    Scratch scratch;
    std::string plain_data = scratch / "plain.dat", sited_data = scratch / "sited.dat";
    ASSERT_TRUE(run_driver({"--no-timer", "-d", plain_data, fixture("sites_fixture_cpp")}, scratch)
                    .exited_zero());
    ASSERT_TRUE(
        run_driver({"--no-timer", "--sites", "-d", sited_data, fixture("sites_fixture_cpp")},
                   scratch)
            .exited_zero());
    auto plain = collector_test::read_records(plain_data);
    auto sited = collector_test::read_records(sited_data);
    ASSERT_EQ(plain.size(), sited.size());
    EXPECT_EQ(collector_test::event_heaps(plain), collector_test::event_heaps(sited));
    EXPECT_EQ(plain[1].heap, sited[1].heap) << "the heap peak";
}

}  // namespace
}  // namespace sites_test
