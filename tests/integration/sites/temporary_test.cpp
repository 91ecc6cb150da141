// Temporary blocks (freed before their thread's next allocation, heaptrack's meaning),
// counted by the collector per site: sites_diff.c frees five blocks each before the next
// allocation, and of a pair freed in allocation order only the second.
#include <gtest/gtest.h>

#include "go_pprof.h"
#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

const std::string kSource = "sites_diff.c";

TEST(Temporary, TheReportCountsThemPerSiteAndInTotal) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_diff")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    const std::string& text = report.out;
    EXPECT_NE(text.find("\nTemporary blocks (freed before their thread's next allocation): 6 of 9 "
                        "(66.7%), 1532 bytes\n"),
              std::string::npos)
        << text;
    std::vector<Entry> entries = entries_of(text);
    const std::string ranking = "Temporary blocks (freed before the thread's next allocation)";
    const Entry* scratch_blocks = find_entry(entries, ranking, location(kSource, "scratch"));
    ASSERT_NE(scratch_blocks, nullptr) << text;
    EXPECT_EQ(scratch_blocks->header, "#1 5 blocks of 5, 1500 bytes");
    const Entry* second = find_entry(entries, ranking, location(kSource, "pair_second"));
    ASSERT_NE(second, nullptr) << text;
    EXPECT_EQ(second->header, "#2 1 block of 1, 32 bytes");
    EXPECT_EQ(find_entry(entries, ranking, location(kSource, "pair_first")), nullptr) << text;
    EXPECT_EQ(find_entry(entries, ranking, location(kSource, "buffer")), nullptr) << text;
}

TEST(Temporary, AnotherThreadsAllocationDoesNotCount) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_temporary_threads")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<Entry> entries = entries_of(report.out);
    const std::string ranking = "Temporary blocks (freed before the thread's next allocation)";
    const std::string source = "sites_temporary_threads.c";
    const Entry* main_block = find_entry(entries, ranking, location(source, "main_block"));
    ASSERT_NE(main_block, nullptr) << report.out;
    EXPECT_NE(main_block->header.find(" 1 block of 1, 128 bytes"), std::string::npos)
        << main_block->header;
    EXPECT_EQ(find_entry(entries, ranking, location(source, "other_thread")), nullptr)
        << report.out;
}

TEST(Temporary, TheDriversSummaryWithSitesSaysHowMany) {
    Scratch scratch;
    Outcome run = run_memusage({"--sites", fixture("sites_fixture_diff")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    EXPECT_NE(
        run.err.find("Temporary blocks (freed before their thread's next allocation): 6 of 9"),
        std::string::npos)
        << run.err;
}

TEST(Temporary, PprofHasThemAsSampleTypes) {
    Scratch scratch;
    std::string profile = scratch / "run.pb.gz";
    Outcome run =
        run_memusage({"--pprof=" + profile, fixture("sites_fixture_diff")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome objects =
        go_pprof({"-top", "-sample_index=temporary_objects"}, profile, scratch.path());
    ASSERT_TRUE(objects.exited_zero()) << objects.err;
    std::map<std::string, std::string> rows = top_rows(objects.out);
    EXPECT_EQ(rows["scratch_blocks"], "5") << objects.out;
    EXPECT_EQ(rows["pair_second"], "1") << objects.out;
    EXPECT_EQ(rows.count("pair_first"), 0u) << objects.out;
    Outcome space =
        go_pprof({"-top", "-unit=B", "-sample_index=temporary_space"}, profile, scratch.path());
    EXPECT_EQ(top_rows(space.out)["scratch_blocks"], "1500B") << space.out;
}

}  // namespace
}  // namespace sites_test
