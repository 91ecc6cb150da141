// SPDX-License-Identifier: MIT
// memusage --html and memusagestat --html on a fixture run: the report's summary holds the
// printed summary's figures, its sites the figures of the sites reports, and bad input is
// refused with a message.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

int exit_status(const Outcome& run) { return WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1; }

TEST(HtmlReport, TheDriversReportHoldsThePrintedSummarysFigures) {
    Scratch scratch;
    Outcome run = run_memusage({"--color=never", "-m", "--html=" + scratch / "report.html",
                                fixture("sites_fixture_c"), library("debug")},
                               scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    const collector_test::Summary printed = collector_test::parse_summary(run.err);
    const nlohmann::json data = report_data(scratch / "report.html");
    ASSERT_TRUE(data.is_object()) << run.err;
    const nlohmann::json& summary = data["summary"];
    ASSERT_TRUE(summary.is_object());
    EXPECT_EQ(summary["heap_total"], printed.heap_total);
    EXPECT_EQ(summary["heap_peak"], printed.heap_peak);
    EXPECT_EQ(summary["stack_peak"], printed.stack_peak);
    ASSERT_EQ(summary["rows"].size(), printed.rows.size());
    for (const auto& row : summary["rows"]) {
        const std::string name = row["name"];
        ASSERT_TRUE(printed.has_row(name)) << name;
        EXPECT_EQ(row["calls"], printed.row(name).calls) << name;
        EXPECT_EQ(row["bytes"], printed.row(name).bytes) << name;
        if (name != "free") {
            EXPECT_EQ(row["failed"], printed.row(name).failed) << name;
        }
    }
    EXPECT_EQ(summary["realloc"]["nomove"], printed.realloc_nomove);
    EXPECT_EQ(summary["realloc"]["dec"], printed.realloc_dec);
    EXPECT_EQ(summary["realloc"]["free"], printed.realloc_free);
    EXPECT_EQ(summary["mremap"]["nomove"], printed.mremap_nomove);
    EXPECT_EQ(summary["mremap"]["dec"], printed.mremap_dec);
    ASSERT_EQ(summary["histogram"].size(), printed.histogram.size());
    for (const auto& bin : summary["histogram"]) {
        const std::string range = bin["to"].is_null()
                                      ? std::string("large")
                                      : std::to_string(bin["from"].get<int>()) + "-" +
                                            std::to_string(bin["to"].get<int>());
        ASSERT_TRUE(printed.histogram.contains(range)) << range;
        EXPECT_EQ(bin["count"], printed.histogram.at(range)) << range;
    }
    // The run's other files are in it too, and nothing of them is left behind.
    EXPECT_EQ(data["run"]["program"], "sites_fixture_c");
    EXPECT_FALSE(data["sites"].empty());
    EXPECT_GT(data["events"]["total"], 0);
    EXPECT_FALSE(data["blocks"]["thinned"]);
    EXPECT_GT(data["timeline"]["records"], 0);
    EXPECT_TRUE(std::filesystem::is_empty(scratch.path()) ||
                std::distance(std::filesystem::directory_iterator(scratch.path()), {}) == 1);
}

TEST(HtmlReport, ItsSitesHaveTheFiguresOfTheSitesReports) {
    Scratch scratch;
    Outcome run = run_memusage(
        {"--color=never", "--leaks", "--html=" + scratch / "report.html",
         "--sites-file=" + scratch / "run.sites", "--events=" + scratch / "run.events",
         "--data=" + scratch / "run.dat", fixture("sites_fixture_c"), library("debug")},
        scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    ASSERT_NE(run.err.find("Leaks: 65000 bytes in 6 blocks"), std::string::npos) << run.err;
    const nlohmann::json data = report_data(scratch / "report.html");
    uint64_t leaked = 0, leaked_blocks = 0;
    for (const auto& site : data["sites"]) {
        leaked += site["leaked"].get<uint64_t>();
        leaked_blocks += site["leaked_blocks"].get<uint64_t>();
        for (const auto& frame : site["frames"])
            EXPECT_LT(frame.get<size_t>(), data["frames"].size());
    }
    EXPECT_EQ(leaked, 65000u);
    EXPECT_EQ(leaked_blocks, 6u);
    // A frame of the fixture's own file comes with its source line.
    bool has_source = false;
    for (const auto& frame : data["frames"])
        has_source |= frame["file"].is_string() &&
                      frame["file"].get<std::string>().ends_with("sites_leaks.c") &&
                      frame["source"].is_string();
    EXPECT_TRUE(has_source);

    // memusagestat --html from the kept files: the same sites and events.
    Outcome again = collector_test::run(
        {collector_test::kOurMemusagestat, "--html=" + scratch / "again.html", scratch / "run.dat",
         "--sites=" + scratch / "run.sites", "--events=" + scratch / "run.events"},
        {}, "");
    ASSERT_TRUE(again.exited_zero()) << again.err;
    const nlohmann::json from_files = report_data(scratch / "again.html");
    EXPECT_EQ(from_files["sites"], data["sites"]);
    EXPECT_EQ(from_files["events"], data["events"]);
    EXPECT_EQ(from_files["timeline"], data["timeline"]);
    EXPECT_TRUE(from_files["summary"]["rows"].empty());  // no summary file: the peaks alone
    EXPECT_EQ(from_files["summary"]["heap_peak"], data["summary"]["heap_peak"]);
}

// The collector's counts of temporary blocks (sites_diff.c frees 5, all at one site, before
// their thread's next heap call), exact with or without the recording.
TEST(HtmlReport, ItsSitesHaveTheCollectorsTemporaryBlocks) {
    Scratch scratch;
    Outcome run =
        run_memusage({"--html=" + scratch / "report.html", "--sites-file=" + scratch / "run.sites",
                      fixture("sites_fixture_diff")},
                     scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome sites_only = collector_test::run(
        {collector_test::kOurMemusagestat, "--html=" + scratch / "sites_only.html",
         "--sites=" + scratch / "run.sites"},
        {}, "");
    ASSERT_TRUE(sites_only.exited_zero()) << sites_only.err;
    for (const char* report : {"report.html", "sites_only.html"}) {
        const nlohmann::json data = report_data(scratch / report);
        uint64_t temporary = 0, most = 0;
        for (const auto& site : data["sites"]) {
            temporary += site["temporary"].get<uint64_t>();
            most = std::max(most, site["temporary"].get<uint64_t>());
        }
        EXPECT_EQ(temporary, 5u) << report;
        EXPECT_EQ(most, 5u) << report;
    }
}

// --keep keeps every file a window's report needs, the summary's included; that report,
// written by memusagestat from them, carries the run's summary and its command line.
TEST(HtmlReport, AWindowsReportFromKeptFilesCarriesTheRunsSummary) {
    Scratch scratch;
    const std::string program = fixture("sites_fixture_c");
    Outcome run = run_memusage({"--color=never", "--html=" + scratch / "report.html",
                                "--keep=" + scratch / "kept", program, library("debug")},
                               scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    const nlohmann::json data = report_data(scratch / "report.html");
    const std::string kept = scratch / "kept";
    Outcome window = collector_test::run(
        {collector_test::kOurMemusagestat, "--html=" + scratch / "window.html",
         "--html-window=0s..", kept + "/run.dat", "--sites=" + kept + "/run.sites",
         "--events=" + kept + "/run.events", "--summary=" + kept + "/run.summary"},
        {}, "");
    ASSERT_TRUE(window.exited_zero()) << window.err;
    const nlohmann::json from_files = report_data(scratch / "window.html");
    EXPECT_FALSE(from_files["summary"]["rows"].empty());
    EXPECT_EQ(from_files["summary"], data["summary"]);
    EXPECT_EQ(from_files["run"]["command"], program + " " + library("debug"));
    EXPECT_EQ(from_files["run"]["command"], data["run"]["command"]);

    // With --events alone the others are kept beside the recording.
    Outcome beside = run_memusage({"--html=" + scratch / "beside.html",
                                   "--events=" + scratch / "run.events", program, library("debug")},
                                  scratch.path());
    ASSERT_TRUE(beside.exited_zero()) << beside.err;
    for (const char* suffix : {".dat", ".sites", ".summary"})
        EXPECT_TRUE(std::filesystem::exists(scratch / ("run.events" + std::string(suffix))))
            << suffix;
}

TEST(HtmlReport, BadInputIsRefusedWithAMessage) {
    Scratch scratch;
    const std::string stat = collector_test::kOurMemusagestat;
    Outcome missing =
        collector_test::run({stat, "--html=" + scratch / "r.html", scratch / "no.dat"}, {}, "");
    EXPECT_EQ(exit_status(missing), 1);
    EXPECT_NE(missing.err.find("no.dat"), std::string::npos) << missing.err;
    Outcome nothing = collector_test::run({stat, "--html=" + scratch / "r.html"}, {}, "");
    EXPECT_EQ(exit_status(nothing), 1);
    EXPECT_NE(nothing.err.find("needs a run's files"), std::string::npos) << nothing.err;
    Outcome window = collector_test::run(
        {stat, "--html=" + scratch / "r.html", "--html-window=2s..1s", scratch / "no.dat"}, {}, "");
    EXPECT_EQ(exit_status(window), 1);
    EXPECT_NE(window.err.find("invalid window '2s..1s'"), std::string::npos) << window.err;
    Outcome alone = collector_test::run({stat, "--html-window=1s..", scratch / "no.dat"}, {}, "");
    EXPECT_NE(alone.err.find("--html-window goes with --html"), std::string::npos) << alone.err;
    Outcome mixed = collector_test::run({stat, "--html=r.html", "--flame=f.png"}, {}, "");
    EXPECT_NE(mixed.err.find("--flame does not go with --html"), std::string::npos) << mixed.err;
    Outcome driver = run_memusage({"--html=", fixture("sites_fixture_c")}, scratch.path());
    EXPECT_EQ(exit_status(driver), 1);
    EXPECT_NE(driver.err.find("'--html'"), std::string::npos) << driver.err;
    EXPECT_FALSE(std::filesystem::exists(scratch / "r.html"));
}

}  // namespace
}  // namespace sites_test
