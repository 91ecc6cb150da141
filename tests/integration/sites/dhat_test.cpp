// SPDX-License-Identifier: MIT
// DHAT JSON (memusagestat --dhat, memusage --dhat) opened in Valgrind's own viewer,
// dh_view.html, in headless Chromium (dh_view.h): the rendered page must name the
// fixture's functions at their lines, with their figures.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "dh_view.h"
#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kC = "sites_leaks.c";

TEST(Dhat, TheViewerShowsEverySiteWithItsTotalsWithoutARecording) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    std::string json = scratch / "run.json";
    Outcome made = report_of(sites, {"--dhat=" + json});
    ASSERT_TRUE(made.exited_zero()) << made.err;
    EXPECT_NE(made.err.find("no lifetimes"), std::string::npos) << made.err;

    std::string text = rendered(json, scratch);
    ASSERT_NE(text.find("Invocation {"), std::string::npos) << text;
    EXPECT_EQ(text.find("Error"), std::string::npos) << text;
    EXPECT_NE(text.find("Mode:    heap\n"), std::string::npos) << text;
    EXPECT_NE(text.find("Command: " + fixture("sites_fixture_c") + "\n"), std::string::npos)
        << text;
    expect_point(text, "leak_direct (" + location(kC, "direct") + ")",
                 {"Total:     1,000 bytes", " in 1 blocks"});
    expect_point(text, "make_peak (" + location(kC, "peak") + ")",
                 {"Total:     100,000 bytes", " in 1 blocks"});
    expect_point(text, "xmalloc (" + location(kC, "wrapper_inside") + ")",
                 {"Total:     2,000 bytes"});
    expect_point(text, "lib_leak (" + location("sites_library.c", "library") + ")",
                 {"Total:     4,000 bytes"});
    EXPECT_NE(text.find("Allocated (no lifetimes: no event recording) at {"), std::string::npos)
        << text;
}

TEST(Dhat, TheDriverWritesItForTheCommandItRan) {
    Scratch scratch;
    std::string json = scratch / "run.json";
    Outcome run = run_memusage({"--dhat=" + json, fixture("sites_fixture_cpp")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    std::string text = rendered(json, scratch);
    EXPECT_NE(text.find("Command: " + fixture("sites_fixture_cpp") + "\n"), std::string::npos)
        << text;
    expect_point(text, "leak_through_new() (" + location("sites_new.cpp", "new") + ")",
                 {"Total:     600 bytes", " in 1 blocks"});
}

TEST(Dhat, AnUnusableRecordingIsAnErrorAfterTheFileIsWritten) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_cpp")}, sites).exited_zero());
    std::string json = scratch / "run.json";
    // A sites file is no event recording.
    Outcome made = report_of(sites, {"--events=" + sites, "--dhat=" + json});
    EXPECT_TRUE(WIFEXITED(made.status) && WEXITSTATUS(made.status) == 1) << made.err;
    EXPECT_EQ(made.err, "memusagestat: " + sites +
                            ": not an events file (no memusage event-recording header)\n");
    EXPECT_TRUE(read_file(json).starts_with("{\"dhatFileVersion\":2\n")) << "written all the same";
}

}  // namespace
}  // namespace sites_test
