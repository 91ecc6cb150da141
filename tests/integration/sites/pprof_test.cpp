// SPDX-License-Identifier: MIT
// pprof profiles (memusagestat --pprof, memusage --pprof) read by `go tool pprof` itself:
// its -top for each sample type, -traces and -raw agree with the sites report of the same
// run, figure for figure.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>

#include "go_pprof.h"
#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

// "heap peak: 119179 bytes" -> "119179" from the report's first line.
std::string figure_after(const std::string& report, const std::string& label) {
    std::smatch match;
    if (!std::regex_search(report, match, std::regex(label + ": ([0-9]+) bytes"))) return "?";
    return match[1];
}

// The function an entry is "at", without its file:line or " [inlined]".
std::string function_at(const Entry& entry) {
    std::string at = entry.stack.at(0).substr(3);  // "at "
    return at.substr(0, at.find(" ("));
}

// "#3 4000 bytes (3.4%)" -> "4000".
std::string bytes_of(const Entry& entry) {
    std::smatch match;
    std::regex_search(entry.header, match, std::regex("#[0-9]+ ([0-9]+) bytes"));
    return match[1];
}

class Pprof : public ::testing::Test {
  protected:
    void SetUp() override {
        Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites_);
        ASSERT_TRUE(run.exited_zero()) << run.err;
        Outcome made = report_of(sites_, {"--pprof=" + profile_});
        ASSERT_TRUE(made.exited_zero()) << made.err;
        EXPECT_EQ(made.out, "") << "an export alone prints no report";
        Outcome report = report_of(sites_);
        ASSERT_TRUE(report.exited_zero()) << report.err;
        report_ = report.out;
    }
    std::string top(const std::string& sample_type, bool bytes = true) {
        std::vector<std::string> options = {"-top", "-nodecount=100",
                                            "-sample_index=" + sample_type};
        if (bytes) options.push_back("-unit=B");
        Outcome top = go_pprof(options, profile_, scratch_.path());
        EXPECT_TRUE(top.exited_zero()) << top.err << top.out;
        EXPECT_NE(top.out.find("Type: " + sample_type + "\n"), std::string::npos) << top.out;
        return top.out;
    }

    Scratch scratch_;
    std::string sites_ = scratch_ / "sites", profile_ = scratch_ / "run.pb.gz";
    std::string report_;
};

TEST_F(Pprof, InuseSpaceIsTheHeapAtItsPeakSiteBySite) {
    std::string out = top("inuse_space");
    EXPECT_EQ(top_total(out), figure_after(report_, "heap peak") + "B") << out;
    std::map<std::string, std::string> rows = top_rows(out);
    int compared = 0;
    for (const Entry& entry : entries_of(report_)) {
        if (entry.section.rfind(kPeakRanking, 0) != 0 || entry.stack.empty()) continue;
        if (entry.stack[0].find(" via ") != std::string::npos)
            continue;  // pprof's leaf: the wrapper
        std::string name = function_at(entry);
        if (entry.stack[0].find("[inlined]") != std::string::npos) name += " (inline)";
        EXPECT_EQ(rows[name], bytes_of(entry) + "B") << name << "\n" << out;
        ++compared;
    }
    EXPECT_GE(compared, 6) << report_;
    EXPECT_EQ(rows["make_peak"], "100000B") << out;
    EXPECT_EQ(rows.count("after_peak"), 0u) << "allocated after the peak\n" << out;
}

TEST_F(Pprof, AllocSpaceAndObjectsCountEveryBlock) {
    std::map<std::string, std::string> space = top_rows(top("alloc_space"));
    EXPECT_EQ(space["make_peak"], "100000B");
    EXPECT_EQ(space["after_peak"], "50000B");
    EXPECT_EQ(space["xmalloc"], "2000B");
    EXPECT_EQ(space["lib_leak"], "4000B");
    std::map<std::string, std::string> objects = top_rows(top("alloc_objects", false));
    EXPECT_EQ(objects["make_peak"], "1");
    EXPECT_EQ(objects["thread_leak"], "1");
}

TEST_F(Pprof, InuseObjectsAreTheBlocksHeldAtThePeak) {
    std::map<std::string, std::string> objects = top_rows(top("inuse_objects", false));
    EXPECT_EQ(objects["make_peak"], "1");
    EXPECT_EQ(objects["leak_direct"], "1");
    EXPECT_EQ(objects.count("after_peak"), 0u);
}

TEST_F(Pprof, LeakedSpaceIsWhatTheLeakRankingHolds) {
    // The program's leaks; with what the runtimes keep (kept_space), all still allocated.
    std::string out = top("leaked_space");
    EXPECT_EQ(top_total(out), "65000B") << out;
    const std::string kept = top_total(top("kept_space"));
    ASSERT_TRUE(kept.ends_with("B")) << kept;
    EXPECT_EQ(std::to_string(65000 + std::stoull(kept)),
              figure_after(report_, "still allocated at exit"));
    std::map<std::string, std::string> rows = top_rows(out);
    EXPECT_EQ(rows["after_peak"], "50000B");
    EXPECT_EQ(rows["leak_direct"], "1000B");
    EXPECT_EQ(rows.count("make_peak"), 0u) << "freed\n" << out;
}

TEST_F(Pprof, TracesHaveTheCallersAndTheInlinedFrames) {
    Outcome traces = go_pprof({"-traces", "-sample_index=alloc_space"}, profile_, scratch_.path());
    ASSERT_TRUE(traces.exited_zero()) << traces.err;
    EXPECT_TRUE(std::regex_search(traces.out,
                                  std::regex("1.95kB +xmalloc\n +leak_through_wrapper\n +main\n")))
        << traces.out;
    EXPECT_TRUE(std::regex_search(
        traces.out, std::regex("4.88kB +inlined_helper \\(inline\\)\n +leak_inlined\n +main\n")))
        << traces.out;
    // The wrapper a site allocated through is the leaf, as in the folded stacks.
    EXPECT_TRUE(std::regex_search(traces.out, std::regex("B +dlopen\n +main\n"))) << traces.out;
}

TEST_F(Pprof, FunctionsHaveFilesAndLinesMappingsTheBuildIds) {
    Outcome raw = go_pprof({"-raw"}, profile_, scratch_.path());
    ASSERT_TRUE(raw.exited_zero()) << raw.err;
    EXPECT_NE(raw.out.find(" make_peak " + location("sites_leaks.c", "peak") + " "),
              std::string::npos)
        << raw.out;
    EXPECT_NE(raw.out.find(" lib_leak " + location("sites_library.c", "library") + " "),
              std::string::npos)
        << raw.out;
    Outcome notes =
        collector_test::run({"/usr/bin/readelf", "-n", fixture("sites_fixture_c")}, {}, "");
    std::smatch build_id;
    ASSERT_TRUE(std::regex_search(notes.out, build_id, std::regex("Build ID: ([0-9a-f]+)")));
    EXPECT_NE(raw.out.find(fixture("sites_fixture_c") + " " + build_id[1].str()), std::string::npos)
        << raw.out;
    EXPECT_NE(raw.out.find("PeriodType: space bytes\n"), std::string::npos) << raw.out;
    EXPECT_TRUE(std::regex_search(raw.out, std::regex("\nTime: 20[0-9][0-9]-"))) << raw.out;
}

TEST(PprofDriver, TheRunsTimeDurationAndCommandAreInTheProfile) {
    Scratch scratch;
    std::string profile = scratch / "run.pb.gz";
    Outcome run =
        run_memusage({"--pprof=" + profile, fixture("sites_fixture_cpp")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome top =
        go_pprof({"-top", "-unit=B", "-sample_index=alloc_space"}, profile, scratch.path());
    ASSERT_TRUE(top.exited_zero()) << top.err;
    EXPECT_NE(top.out.find(fixture("sites_fixture_cpp") + "\n"), std::string::npos) << top.out;
    EXPECT_TRUE(std::regex_search(top.out, std::regex("\nDuration: [0-9.]+m?s,"))) << top.out;
    // (Functions by their display name: no parameters.)
    EXPECT_NE(top.out.find(" leak_through_new\n"), std::string::npos) << top.out;
}

TEST(PprofDriver, AFileThatCannotBeWrittenIsSaid) {
    Scratch scratch;
    Outcome run = run_memusage(
        {"--pprof=" + scratch.path() + "/no/such/dir/p.pb.gz", fixture("sites_fixture_cpp")},
        scratch.path());
    EXPECT_NE(run.err.find("cannot write"), std::string::npos) << run.err;
}

// Two instances of one function template are two nodes: pprof simplifies a function's name
// (dropping template arguments) only when it equals the system name, which is the full one.
TEST(PprofNames, TemplateInstancesAreNotMerged) {
    Scratch scratch;
    std::string sites = scratch / "sites", profile = scratch / "run.pb.gz";
    Outcome run = run_with_sites({fixture("sites_fixture_templates")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome made = report_of(sites, {"--pprof=" + profile});
    ASSERT_TRUE(made.exited_zero()) << made.err;
    Outcome top = go_pprof({"-top", "-cum", "-nodecount=100", "-nodefraction=0",
                            "-sample_index=leaked_space", "-unit=B"},
                           profile, scratch.path());
    ASSERT_TRUE(top.exited_zero()) << top.err << top.out;
    std::map<std::string, std::string> rows = top_rows(top.out);
    EXPECT_TRUE(rows.contains("build<40>")) << top.out;
    EXPECT_TRUE(rows.contains("build<100>")) << top.out;
    // The folded stacks name them apart too.
    std::string folded = scratch / "run.folded";
    Outcome written = report_of(sites, {"--folded=" + folded, "--folded-metric=leaked"});
    ASSERT_TRUE(written.exited_zero()) << written.err;
    std::ifstream file(folded);
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("main;build<40>;"), std::string::npos) << text;
    EXPECT_NE(text.find("main;build<100>;"), std::string::npos) << text;
}

}  // namespace
}  // namespace sites_test
