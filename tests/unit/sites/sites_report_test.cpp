// SPDX-License-Identifier: MIT
#include "reports/sites_report.h"

#include <gtest/gtest.h>

#include "made_up_site.h"

namespace memusagestat {
namespace {

std::string report_of(const SitesProfile& profile, unsigned top = 10) {
    Symbolizer symbolizer(profile.modules);
    return sites_report(profile, symbolizer, SitesReportOptions{top});
}

// The lines of the report from the one starting with `title` to the next empty line.
std::string ranking(const std::string& report, const std::string& title) {
    size_t start = report.find("\n" + title);
    if (start == std::string::npos) return "";
    size_t end = report.find("\n\n", start + 1);
    return report.substr(start + 1, end == std::string::npos ? std::string::npos : end - start);
}

TEST(SitesReport, RanksEachFigureLargestFirst) {
    SitesProfile profile;
    profile.heap_peak = 1000;
    profile.sites = {made_up_site({0x10}, 1, 100, 0, 0, 100),
                     made_up_site({0x20}, 5, 5000, 5, 5000, 800),
                     made_up_site({0x30}, 2, 300, 1, 100, 100)};
    std::string report = report_of(profile);
    EXPECT_EQ(ranking(report, "Bytes held at the heap peak"),
              "Bytes held at the heap peak:\n"
              "  #1 800 bytes (80.0%)\n"
              "       at 0x20\n"
              "  #2 100 bytes (10.0%)\n"
              "       at 0x10\n"
              "  #3 100 bytes (10.0%)\n"
              "       at 0x30\n")
        << report;
    EXPECT_EQ(ranking(report, "Bytes still allocated at exit"),
              "Bytes still allocated at exit (leaks):\n"
              "  #1 200 bytes in 1 block\n"
              "       at 0x30\n"
              "  #2 100 bytes in 1 block\n"
              "       at 0x10\n")
        << report;
    EXPECT_EQ(ranking(report, "Bytes allocated"),
              "Bytes allocated:\n"
              "  #1 5000 bytes in 5 calls\n"
              "       at 0x20\n"
              "  #2 300 bytes in 2 calls\n"
              "       at 0x30\n"
              "  #3 100 bytes in 1 call\n"
              "       at 0x10\n")
        << report;
    EXPECT_TRUE(
        report.starts_with("Allocation sites: 3; heap peak: 1000 bytes; still allocated "
                           "at exit: 300 bytes in 2 blocks\n"))
        << report;
}

TEST(SitesReport, TopCutsEveryRankingAndSaysSo) {
    SitesProfile profile;
    for (uint64_t i = 1; i <= 5; ++i) profile.sites.push_back(made_up_site({i}, 1, i, 0, 0, i));
    std::string report = report_of(profile, 2);
    EXPECT_NE(report.find("Bytes held at the heap peak (top 2 of 5):\n  #1 5 bytes\n"),
              std::string::npos)
        << report;
    EXPECT_EQ(report.find("#3"), std::string::npos) << report;
}

TEST(SitesReport, EqualStacksAreOneSiteAndEmptyRankingsSayNone) {
    SitesProfile profile;
    profile.heap_peak = 60;
    profile.sites = {made_up_site({0x10, 0x20}, 1, 10, 1, 10, 10),
                     made_up_site({0x10, 0x20}, 2, 50, 2, 50, 50)};
    std::string report = report_of(profile);
    EXPECT_TRUE(report.starts_with("Allocation sites: 1;")) << report;
    EXPECT_NE(report.find("  #1 60 bytes (100.0%)\n       at 0x10\n       by 0x20\n"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("Bytes still allocated at exit (leaks):\n   none\n"), std::string::npos)
        << report;
}

TEST(SitesReport, LeavesWhatTheRuntimesKeepOutOfTheLeaksAsTheLeakReportDoes) {
    SitesProfile profile;
    profile.heap_peak = 5000;
    profile.sites = {made_up_site({0x10}, 1, 100, 0, 0, 100),
                     made_up_site({0x20}, 1, 4096, 0, 0, 4096)};
    Symbolizer symbolizer(profile.modules);
    std::vector<ShownSite> shown = shown_sites(profile, symbolizer);
    shown[1].kept_by_runtime = shown[1].figures;  // as a stdio buffer's stack makes it
    shown[1].kept_ids = shown[1].ids;
    std::string report = sites_report(profile, shown, symbolizer, SitesReportOptions{});
    EXPECT_EQ(ranking(report, "Bytes still allocated at exit"),
              "Bytes still allocated at exit (leaks):\n"
              "  #1 100 bytes in 1 block\n"
              "       at 0x10\n")
        << report;
    EXPECT_NE(report.find("       at 0x10\n\nNot counted: 4096 bytes in 1 block the C and C++ "
                          "runtimes keep until exit (stdio buffers, dlopen's and "
                          "pthread_create's records, libstdc++'s exception pool)\n\nBytes "
                          "allocated:\n"),
              std::string::npos)
        << report;
    // The other rankings show every block.
    EXPECT_NE(report.find("Bytes held at the heap peak:\n  #1 4096 bytes"), std::string::npos)
        << report;
}

// getline's line buffers and the stream's own buffer fold into one shown site: only the
// blocks of the raw site that allocated the stream's buffer are the runtime's.
TEST(SitesReport, LeavesOutOnlyTheRuntimesPartOfASite) {
    SitesProfile profile;
    profile.heap_peak = 124096;
    profile.sites = {made_up_site({0x10}, 1001, 124096, 0, 0, 124096)};
    Symbolizer symbolizer(profile.modules);
    std::vector<ShownSite> shown = shown_sites(profile, symbolizer);
    shown[0].kept_by_runtime = made_up_site({0x10}, 1, 4096, 0, 0, 4096);
    std::string report = sites_report(profile, shown, symbolizer, SitesReportOptions{});
    EXPECT_EQ(ranking(report, "Bytes still allocated at exit"),
              "Bytes still allocated at exit (leaks):\n"
              "  #1 120000 bytes in 1000 blocks\n"
              "       at 0x10\n")
        << report;
    EXPECT_NE(report.find("       at 0x10\n\nNot counted: 4096 bytes in 1 block the C"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("Bytes allocated:\n  #1 124096 bytes in 1001 calls"), std::string::npos)
        << report;
}

TEST(SitesReport, SaysWhereAStackWasCut) {
    SitesProfile profile;
    profile.max_depth = 2;  // the collector kept at most 2 frames of a stack
    profile.sites = {made_up_site({0x10, 0x20}, 1, 100, 1, 100, 100),
                     made_up_site({0x30}, 1, 10, 1, 10, 0)};
    std::string report = report_of(profile);
    EXPECT_NE(report.find("  #1 100 bytes in 1 call\n       at 0x10\n       by 0x20\n       by ... "
                          "(the stack was cut at 2 frames)\n  #2 10 bytes in 1 call\n       at "
                          "0x30\n"),
              std::string::npos)
        << report;
}

TEST(SitesReport, NotesSayHowTheRunEnded) {
    SitesProfile profile;
    profile.ended_by_crash = true;
    profile.stack_table_full = true;
    profile.unwinder_missing = true;
    profile.sites = {made_up_site({}, 1, 10, 0, 0, 10)};
    std::string report = report_of(profile);
    EXPECT_NE(report.find("at (no stack: libunwind.so.8 could not be loaded)"), std::string::npos)
        << report;
    EXPECT_NE(report.find("Note: the program died of a fatal signal"), std::string::npos);
    EXPECT_NE(report.find("Note: the stack table filled up"), std::string::npos);
    EXPECT_NE(report.find("Note: libunwind.so.8 could not be loaded"), std::string::npos);
}

}  // namespace
}  // namespace memusagestat
