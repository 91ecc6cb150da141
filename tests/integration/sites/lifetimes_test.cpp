// SPDX-License-Identifier: MIT
// Lifetimes from real runs: memusage --long-lived and --dhat, memusagestat --events, on a
// fixture that holds blocks for known sleeps. The replay itself is tested on recordings
// built byte by byte (tests/unit/sites/site_replay_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>

#include "dh_view.h"
#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kLifetimes = "sites_lifetimes.c";

// The fixture holds its long-lived blocks for at least 400 ms and its short-lived ones for
// microseconds: 300 ms sits between with wide margins on both sides.
const std::string kThreshold = "--long-lived=300ms";

void expect_long_lived(const std::string& report) {
    ASSERT_TRUE(
        report.starts_with("Long-lived blocks: 4 blocks (11777 bytes) lived longer than "
                           "300.0 ms (of a "))
        << report;
    std::vector<Entry> entries = entries_of(report);
    ASSERT_EQ(entries.size(), 3u) << report;
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"at hold_long (" + location(kLifetimes, "long") + ")",
         "#1 6000 bytes in 2 blocks (all freed); lifetime mean "},
        // Moved by a realloc 200 ms after its birth, it still lived from its birth.
        {"at born_early (" + location(kLifetimes, "born") + ")",
         "#2 5000 bytes in 1 block (all freed); lifetime mean "},
        {"at keep_forever (" + location(kLifetimes, "forever") + ")",
         "#3 777 bytes in 1 block (never freed); lifetime mean "},
    };
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_TRUE(entries[i].header.starts_with(expected[i].second)) << entries[i].text();
        ASSERT_FALSE(entries[i].stack.empty());
        EXPECT_EQ(entries[i].stack[0], expected[i].first) << report;
    }
    for (const char* brief : {"short_lived", "allocated_late"})
        EXPECT_EQ(report.find(brief), std::string::npos) << report;
}

std::string report_after_summary(const std::string& err) {
    size_t at = err.find("\nLong-lived blocks: ");
    return at == std::string::npos ? "" : err.substr(at + 1);
}

TEST(LongLived, TheDriverListsTheBlocksThatOutlivedTheDuration) {
    Scratch scratch;
    Outcome run = run_memusage({kThreshold, fixture("sites_fixture_lifetimes")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    expect_long_lived(report_after_summary(run.err));
    EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "the private files are gone";
}

TEST(LongLived, MemusagestatMakesTheSameReportFromTheFiles) {
    Scratch scratch;
    std::string sites = scratch / "sites", events = scratch / "events";
    Outcome run =
        run_with_sites({fixture("sites_fixture_lifetimes")}, sites, {"MEMUSAGE_EVENTS=" + events});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites, {"--events=" + events, kThreshold});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_EQ(report.err, "");
    expect_long_lived(report.out);
    Outcome none = report_of(sites, {"--events=" + events, "--long-lived=1min"});
    EXPECT_TRUE(none.out.starts_with("No long-lived blocks: none lived longer than 60.00 s"))
        << none.out;
}

TEST(LongLived, TheDriverKeepsTheFilesItIsToldToAndReportsFromThem) {
    Scratch scratch;
    std::string sites = scratch / "kept.sites", events = scratch / "kept.events";
    std::string tmpdir = scratch / "tmp";
    std::filesystem::create_directory(tmpdir);
    Outcome run = run_memusage({"--sites-file=" + sites, "--events=" + events, kThreshold,
                                fixture("sites_fixture_lifetimes")},
                               tmpdir);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    expect_long_lived(report_after_summary(run.err));
    EXPECT_TRUE(std::filesystem::is_empty(tmpdir)) << "no private files were needed";
    ASSERT_TRUE(std::filesystem::exists(sites));
    ASSERT_TRUE(std::filesystem::exists(events));
    Outcome report = report_of(sites, {"--events=" + events, kThreshold});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    expect_long_lived(report.out);
}

TEST(LongLived, ARecordingKeptWithoutASitesFileKeepsItsSitesBesideIt) {
    Scratch scratch;
    std::string events = scratch / "kept.events";
    std::string tmpdir = scratch / "tmp";
    std::filesystem::create_directory(tmpdir);
    Outcome run =
        run_memusage({"--sites", "--events=" + events, fixture("sites_fixture_lifetimes")}, tmpdir);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    EXPECT_TRUE(std::filesystem::is_empty(tmpdir)) << "no private sites file";
    EXPECT_NE(run.err.find("memusage: the allocation sites of " + events + " are kept in " +
                           events + ".sites"),
              std::string::npos)
        << run.err;
    Outcome report = report_of(events + ".sites", {"--events=" + events, kThreshold});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    expect_long_lived(report.out);
}

TEST(LongLived, TheSitesFileAloneIsKeptWithoutAReport) {
    Scratch scratch;
    std::string sites = scratch / "kept.sites";
    Outcome run =
        run_memusage({"--sites-file=" + sites, fixture("sites_fixture_lifetimes")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    EXPECT_EQ(run.err.find("Allocation sites"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("Long-lived"), std::string::npos) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("hold_long"), std::string::npos) << report.out;
}

TEST(Dhat, WithTheRecordingTheViewerShowsLifetimesPeaksAndEnds) {
    Scratch scratch;
    std::string json = scratch / "run.json";
    Outcome run =
        run_memusage({"--dhat=" + json, fixture("sites_fixture_lifetimes")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    EXPECT_EQ(run.err.find("no lifetimes"), std::string::npos) << run.err;
    std::string text = rendered(json, scratch);
    EXPECT_EQ(text.find("Error"), std::string::npos) << text;
    EXPECT_NE(text.find("  t-gmax: "), std::string::npos) << text;
    EXPECT_GE(number_after(text, "  t-end:  "), 400000) << text;  // µs: two 200 ms sleeps

    const std::string kLifetimes = "sites_lifetimes.c";
    std::string held = program_point(text, "hold_long (" + location(kLifetimes, "long") + ")");
    ASSERT_NE(held, "") << text;
    for (const char* figure :
         {"Total:     6,000 bytes", " in 2 blocks", "Max:       6,000 bytes in 2 blocks",
          "At t-gmax: 6,000 bytes", "At t-end:  0 bytes"})
        EXPECT_NE(held.find(figure), std::string::npos) << figure << " in:\n" << held;
    EXPECT_GE(number_after(held, "avg lifetime "), 400000) << held;

    expect_point(text, "keep_forever (" + location(kLifetimes, "forever") + ")",
                 {"Total:     777 bytes", "At t-end:  777 bytes"});
    std::string brief = program_point(text, "short_lived (" + location(kLifetimes, "short") + ")");
    ASSERT_NE(brief, "") << text;
    EXPECT_NE(brief.find("Total:     5,000 bytes"), std::string::npos) << brief;
    EXPECT_LT(number_after(brief, "avg lifetime "), 100000) << brief;
    EXPECT_NE(text.find("Allocated at {"), std::string::npos) << text;
}

// With sampled sites the recording names a site only for the sampled blocks, and it does not
// carry their weights: replayed, it would give lifetimes and peaks of the sample beside the
// sites file's weighted totals (a python run's DHAT file had 444 blocks of 3.7 MB and an
// average lifetime of 4 us, from the 2 blocks sampled). The DHAT file keeps to the
// estimates and says why it has no lifetimes; the long-lived report says it lists the sample.
TEST(SampledSites, TheDhatFileHasEstimatesAndNoLifetimesTheLongLivedReportSaysSo) {
    Scratch scratch;
    std::string sites = scratch / "sites", events = scratch / "events";
    Outcome run = run_with_sites(
        {fixture("sites_fixture_lifetimes")}, sites,
        {"MEMUSAGE_EVENTS=" + events, "MEMUSAGE_SITES_SAMPLE=1000", "MEMUSAGE_SITES_SEED=7"});
    ASSERT_TRUE(run.exited_zero()) << run.err;

    std::string json = scratch / "run.json";
    Outcome dhat = report_of(sites, {"--events=" + events, "--dhat=" + json});
    ASSERT_TRUE(dhat.exited_zero()) << dhat.err;
    EXPECT_NE(dhat.err.find("no lifetimes"), std::string::npos) << dhat.err;
    std::string text = read_file(json);
    EXPECT_NE(text.find("\"bklt\":false"), std::string::npos) << text;
    EXPECT_EQ(text.find("\"tl\":"), std::string::npos) << text;
    EXPECT_NE(text.find("sampled"), std::string::npos) << "the verb says why:\n" << text;

    Outcome report = report_of(sites, {"--events=" + events, kThreshold});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("Note: the sites were sampled"), std::string::npos) << report.out;
}

}  // namespace
}  // namespace sites_test
