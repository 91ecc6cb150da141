// SPDX-License-Identifier: MIT
#include "html/page_data.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "page_files.h"
#include "records.h"

namespace memusagestat {
namespace {

using report_test::Scratch;

memusage::Status build(const HtmlReportRequest& request, nlohmann::json& data,
                       const ReportBounds& bounds = {}) {
    std::vector<std::string> warnings;
    return build_report_data(request, bounds, data, warnings);
}

TEST(ReportData, TheTimelineIsThinnedKeepingTheMaximum) {
    Scratch scratch;
    const auto records = report_test::data_file_records(300000, 123457);
    ASSERT_TRUE(report_test::write_bytes(scratch / "run.dat", records.data(),
                                         records.size() * sizeof records[0]));
    HtmlReportRequest request;
    request.data_path = scratch / "run.dat";
    nlohmann::json data;
    ASSERT_EQ(build(request, data).error(), "");
    const nlohmann::json& timeline = data["timeline"];
    EXPECT_EQ(timeline["records"], 300000);
    EXPECT_TRUE(timeline["thinned"]);
    EXPECT_LE(timeline["heap"].size(), kTimelineBound);
    const auto& heap = timeline["heap"];
    EXPECT_EQ(*std::max_element(heap.begin(), heap.end()), 5000000);
    EXPECT_TRUE(std::is_sorted(timeline["index"].begin(), timeline["index"].end()));
    // Only a data file: its peaks, and no sites, events or blocks.
    EXPECT_EQ(data["summary"]["heap_peak"], 5000000);
    EXPECT_TRUE(data["summary"]["heap_total"].is_null());
    EXPECT_TRUE(data["sites"].is_null());
    EXPECT_TRUE(data["events"].is_null());
    EXPECT_TRUE(data["blocks"].is_null());
    // Without a recording or a summary file the clock's rate is unknown: times are relative.
    EXPECT_EQ(data["run"]["seconds"], 1);
    EXPECT_NE(data["run"]["notes"].dump().find("fractions of the run"), std::string::npos);
}

TEST(ReportData, EveryRecordBelowTheBoundAndTheRecordingsClockForBoth) {
    Scratch scratch;
    const auto records = report_test::data_file_records(1000, 10);
    ASSERT_TRUE(report_test::write_bytes(scratch / "run.dat", records.data(),
                                         records.size() * sizeof records[0]));
    ASSERT_TRUE(report_test::churn_recording(1000).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.data_path = scratch / "run.dat";
    request.events_path = scratch / "run.events";
    nlohmann::json data;
    ASSERT_EQ(build(request, data).error(), "");
    EXPECT_FALSE(data["timeline"]["thinned"]);
    EXPECT_EQ(data["timeline"]["time"].size(), 1000u);
    EXPECT_EQ(data["events"]["time"].size(), 1000u);
    EXPECT_EQ(data["run"]["pid"], 4242);
    // A cycle is a nanosecond: the data file's records, 10 cycles apart, span 10 µs.
    const auto& time = data["timeline"]["time"];
    EXPECT_NEAR(time.back().get<double>() - time.front().get<double>(), 1e-5, 2e-7);
}

TEST(ReportData, AWindowIsReportedInFullUpToTheBounds) {
    Scratch scratch;
    ASSERT_TRUE(report_test::churn_recording(400000).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.events_path = scratch / "run.events";
    nlohmann::json whole, window;
    ASSERT_EQ(build(request, whole).error(), "");
    EXPECT_TRUE(whole["events"]["thinned"]);
    request.window = parse_time_window("100ms..250ms");
    ASSERT_EQ(build(request, window).error(), "");
    EXPECT_FALSE(window["events"]["thinned"]);
    EXPECT_EQ(window["events"]["total"], window["events"]["time"].size());
    EXPECT_GT(window["events"]["total"], 140000);
    EXPECT_EQ(window["run"]["window"]["start"], 0.1);
    EXPECT_EQ(window["run"]["window"]["end"], 0.25);
}

TEST(ReportData, AWindowOpensAtTheLevelCarriedIntoIt) {
    Scratch scratch;
    const auto records = report_test::data_file_records(1000, 10);
    ASSERT_TRUE(report_test::write_bytes(scratch / "run.dat", records.data(),
                                         records.size() * sizeof records[0]));
    ASSERT_TRUE(report_test::churn_recording(1000).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.data_path = scratch / "run.dat";
    request.events_path = scratch / "run.events";
    nlohmann::json whole, window;
    ASSERT_EQ(build(request, whole).error(), "");
    request.window = parse_time_window("30us..600us");
    ASSERT_EQ(build(request, window).error(), "");
    // The timeline's first point: at the window's start, the level of the last record before
    // (here the data file's last: its records span the run's first 10 µs).
    const auto& all = whole["timeline"];
    ASSERT_LT(all["time"].back().get<double>(), 3e-5);
    EXPECT_DOUBLE_EQ(window["timeline"]["time"][0].get<double>(), 3e-5);
    EXPECT_EQ(window["timeline"]["heap"][0], all["heap"].back());
    // The buckets begin at the window, with the heap the events before it left.
    size_t event = 0;
    while (whole["events"]["time"][event + 1].get<double>() < 3e-5) ++event;
    EXPECT_DOUBLE_EQ(window["buckets"]["start"].get<double>(), 3e-5);
    EXPECT_EQ(window["buckets"]["levels"][0]["heap"][0], whole["events"]["heap"][event]);
    EXPECT_GT(window["buckets"]["levels"][0]["heap"][0].get<int64_t>(), 0);
}

TEST(ReportData, TheThinnedNoticeNamesACommandThatWorksForTheRun) {
    Scratch scratch;
    ASSERT_TRUE(report_test::churn_recording(300000).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.events_path = scratch / "run.events";
    nlohmann::json kept, gone;
    ASSERT_EQ(build(request, kept).error(), "");
    const std::string kept_notes = kept["run"]["notes"].dump();
    EXPECT_NE(kept_notes.find("--html-window=START..END --events=" + request.events_path),
              std::string::npos)
        << kept_notes;
    // Temporaries: the run again as the driver gives it, keeping its files, then the window.
    request.files_private = true;
    request.rerun = "memusage --keep=memusage-run --html=r.html ./prog";
    request.rerun_data = "memusage-run/run.dat";
    request.rerun_sites = "memusage-run/run.sites";
    request.rerun_events = "memusage-run/run.events";
    request.rerun_summary = "memusage-run/run.summary";
    ASSERT_EQ(build(request, gone).error(), "");
    const std::string gone_notes = gone["run"]["notes"].dump();
    EXPECT_NE(gone_notes.find("were not kept"), std::string::npos) << gone_notes;
    EXPECT_NE(gone_notes.find("memusage --keep=memusage-run --html=r.html ./prog, then "
                              "memusagestat --html=window.html --html-window=START..END "
                              "memusage-run/run.dat --sites=memusage-run/run.sites "
                              "--events=memusage-run/run.events "
                              "--summary=memusage-run/run.summary."),
              std::string::npos)
        << gone_notes;
}

TEST(ReportData, AShellWordIsQuotedOnlyWhenItMustBe) {
    EXPECT_EQ(shell_word("/tmp/run.events"), "/tmp/run.events");
    EXPECT_EQ(shell_word("my run.events"), "'my run.events'");
    EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_word(""), "''");
}

TEST(ReportData, AWindowAfterTheRunIsRefusedWithTheRunsLength) {
    Scratch scratch;
    ASSERT_TRUE(report_test::churn_recording(1000).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.events_path = scratch / "run.events";
    request.window = parse_time_window("2s..3s");
    nlohmann::json data;
    const std::string error = build(request, data).error();
    EXPECT_NE(error.find("outside the run"), std::string::npos) << error;
    EXPECT_NE(error.find("lasted 0.00"), std::string::npos) << error;
}

TEST(ReportData, ARunWithoutAllocationLastsAsLongAsItRan) {
    Scratch scratch;
    // The data file of a run that made no call: its two header records, 2 ms apart on a
    // counter far from zero; the recording has no clock record, only its trailer.
    const uint64_t start = 50'000'000'000;
    const std::vector<memusage::Record> header = {stat_test::record(0, 0, start),
                                                  stat_test::record(0, 0, start + 2'000'000)};
    ASSERT_TRUE(report_test::write_bytes(scratch / "run.dat", header.data(),
                                         header.size() * sizeof header[0]));
    events_test::EventsFileBuilder recording;
    recording.trailer(start + 2'000'000, 2'000'000);
    ASSERT_TRUE(recording.write(scratch / "run.events"));
    HtmlReportRequest request;
    request.data_path = scratch / "run.dat";
    request.events_path = scratch / "run.events";
    nlohmann::json data;
    ASSERT_EQ(build(request, data).error(), "");
    EXPECT_LT(data["run"]["seconds"].get<double>(), 1.0) << data["run"].dump();
}

TEST(ReportData, BadInputIsRefusedWithAMessage) {
    Scratch scratch;
    nlohmann::json data;
    EXPECT_NE(build({}, data).error().find("needs a run's files"), std::string::npos);
    HtmlReportRequest request;
    request.data_path = scratch / "missing.dat";
    EXPECT_NE(build(request, data).error().find("missing.dat"), std::string::npos);
    ASSERT_TRUE(report_test::write_bytes(scratch / "junk", "not a recording", 15));
    request = {};
    request.events_path = scratch / "junk";
    EXPECT_FALSE(build(request, data).ok());
    request = {};
    request.sites_path = scratch / "junk";
    EXPECT_FALSE(build(request, data).ok());
    request = {};
    request.summary_path = scratch / "junk";
    EXPECT_NE(build(request, data).error().find("not a memusage summary file"), std::string::npos);
}

TEST(TimeWindow, ReadsTwoDurations) {
    auto window = parse_time_window("1.5s..2s");
    ASSERT_TRUE(window);
    EXPECT_DOUBLE_EQ(window->start, 1.5);
    EXPECT_DOUBLE_EQ(window->end.value_or(-1), 2);
    window = parse_time_window("100ms..");
    ASSERT_TRUE(window);
    EXPECT_DOUBLE_EQ(window->start, 0.1);
    EXPECT_FALSE(window->end);
    window = parse_time_window("..2s");
    ASSERT_TRUE(window);
    EXPECT_DOUBLE_EQ(window->start, 0);
    for (const char* bad : {"", "..", "1s", "2s..1s", "1..2", "1s..2s..3s", "-1s..2s", "a..b"})
        EXPECT_FALSE(parse_time_window(bad)) << bad;
    EXPECT_NE(time_window_error("x").find("START..END"), std::string::npos);
}

}  // namespace
}  // namespace memusagestat
