// DHAT JSON (memusagestat --dhat, memusage --dhat) opened in Valgrind's own viewer,
// dh_view.html, in headless Chromium: the rendered page must name the fixture's functions
// at their lines, with their figures. The page is loaded as dh_view.html loads it, but
// with the file handed over by a script instead of the file picker a user would click.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kC = "sites_leaks.c";
const std::string kViewer = DHAT_VIEWER_DIR;  // holds dh_view.js (Debian's valgrind package)

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// dh_view.js's own loading, after FileReader has read the file: parse, build, display.
std::string viewer_page(const std::string& json) {
    std::string embedded = json;
    for (size_t at = 0; (at = embedded.find("</", at)) != std::string::npos; at += 3)
        embedded.replace(at, 2, "<\\/");
    return "<!DOCTYPE html>\n<html><head><meta charset=\"UTF-8\">\n"
           "<script src=\"file://" +
           kViewer +
           "/dh_view.js\"></script>\n"
           "<script type=\"application/json\" id=\"dhat\">" +
           embedded +
           "</script>\n</head>\n"
           "<body onload=\"onLoad(); gFilename = 'run.json'; tryFunc(() => {"
           " const data = document.getElementById('dhat'); gData = JSON.parse(data.textContent);"
           " data.remove(); buildTree(); displayTree(); });\"></body></html>\n";
}

std::string without_tags(const std::string& html) {
    std::string text;
    bool in_tag = false;
    for (char c : html) {
        if (c == '<') in_tag = true;
        if (!in_tag) text += c;
        if (c == '>') in_tag = false;
    }
    for (auto [entity, character] : {std::pair{"&gt;", ">"}, {"&lt;", "<"}, {"&amp;", "&"}})
        for (size_t at; (at = text.find(entity)) != std::string::npos;)
            text.replace(at, std::string(entity).size(), character);
    return text;
}

// The text dh_view renders for the JSON file at `path`.
std::string rendered(const std::string& json_path, const Scratch& scratch) {
    std::string page = scratch / "view.html";
    std::ofstream(page) << viewer_page(read_file(json_path));
    Outcome chromium = collector_test::run_bounded(
        90,
        {"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--lang=en-US",
         "--allow-file-access-from-files", "--user-data-dir=" + scratch / "profile", "--dump-dom",
         "file://" + page},
        {"LANG=en_US.UTF-8", "HOME=" + scratch.path()}, "");
    EXPECT_FALSE(chromium.timed_out);
    EXPECT_TRUE(chromium.exited_zero()) << chromium.err;
    return without_tags(chromium.out);
}

// The program point whose frames include `frame`: from its "PP " line to the next.
std::string program_point(const std::string& text, const std::string& frame) {
    size_t at = text.find(": " + frame + "\n");
    if (at == std::string::npos) return "";
    size_t start = text.rfind("PP ", at);
    size_t end = text.find("PP ", at);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

void expect_point(const std::string& text, const std::string& frame,
                  const std::vector<std::string>& figures) {
    std::string point = program_point(text, frame);
    ASSERT_NE(point, "") << "no program point with " << frame << " in:\n" << text;
    for (const std::string& figure : figures)
        EXPECT_NE(point.find(figure), std::string::npos) << "want " << figure << " in:\n" << point;
}

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
