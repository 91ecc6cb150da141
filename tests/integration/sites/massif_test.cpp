// massif files (memusage --massif, memusagestat --massif) read by Debian's ms_print: the
// peak snapshot is the heap peak of the sites report, its largest branch the report's
// first site, and the last snapshot holds what the leak ranking holds.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

std::string with_commas(const std::string& digits) {
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

TEST(Massif, MsPrintShowsThePeakAndTheTopSiteOfTheReport) {
    Scratch scratch;
    std::string massif = scratch / "massif.out", sites = scratch / "sites";
    Outcome run = run_memusage({"--massif=" + massif, "--sites-file=" + sites,
                                fixture("sites_fixture_c"), library("debug")},
                               scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    std::smatch peak;
    ASSERT_TRUE(std::regex_search(report.out, peak, std::regex("heap peak: ([0-9]+) bytes")));

    Outcome printed = collector_test::run({"/usr/bin/ms_print", massif}, {}, "");
    ASSERT_TRUE(printed.exited_zero()) << printed.err;
    const std::string& text = printed.out;
    EXPECT_NE(text.find("Command:            " + fixture("sites_fixture_c")), std::string::npos)
        << text;
    // The start, the heap between, the peak and the end, the last two detailed.
    std::smatch counts;
    ASSERT_TRUE(std::regex_search(
        text, counts,
        std::regex("Number of snapshots: ([0-9]+)\n Detailed snapshots: \\[([0-9]+) \\(peak\\), "
                   "([0-9]+)\\]")))
        << text;
    const int snapshots = std::stoi(counts[1]), peak_at = std::stoi(counts[2]);
    EXPECT_GT(snapshots, 10) << "the heap between the start and the end";
    EXPECT_EQ(std::stoi(counts[3]), snapshots - 1);
    // The peak snapshot's row: n, time, total, useful heap.
    EXPECT_TRUE(std::regex_search(
        text, std::regex("\n +" + std::to_string(peak_at) + " +[0-9,]+ +" + with_commas(peak[1]) +
                         " +" + with_commas(peak[1]) + " ")))
        << peak[1] << "\n"
        << text;
    // Its largest branch: the report's first site, with its caller beneath, as ms_print
    // gives its share of the peak (the peak moves with the length of the fixture's path).
    char share[16];
    std::snprintf(share, sizeof share, "%.2f%%", 100.0 * 100000 / std::stod(peak[1]));
    EXPECT_NE(text.find("100.00% (" + with_commas(peak[1]) +
                        "B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
                        "->" +
                        std::string(share) + " (100,000B) 0x"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(": make_peak (" + location("sites_leaks.c", "peak") + ")\n| ->" + share +
                        " (100,000B) 0x"),
              std::string::npos)
        << text;
    // The end: what is still allocated, the block allocated after the peak first.
    std::smatch leaked;
    ASSERT_TRUE(std::regex_search(report.out, leaked,
                                  std::regex("still allocated at exit: ([0-9]+) bytes")));
    EXPECT_TRUE(std::regex_search(text, std::regex("\n +" + std::to_string(snapshots - 1) +
                                                   " +[0-9,]+ +" + with_commas(leaked[1]) + " ")))
        << text;
    EXPECT_NE(text.find("(50,000B) 0x"), std::string::npos) << text;
    EXPECT_NE(text.find(": after_peak (" + location("sites_leaks.c", "after_peak") + ")"),
              std::string::npos)
        << text;
}

TEST(Massif, WithoutARecordingTheTimesAreNotKnownAndThatIsSaid) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome made = report_of(sites, {"--massif=" + scratch / "massif.out"});
    EXPECT_EQ(WEXITSTATUS(made.status), 1);
    EXPECT_NE(made.err.find("the massif file needs the run's event recording (--events)"),
              std::string::npos)
        << made.err;
}

}  // namespace
}  // namespace sites_test
