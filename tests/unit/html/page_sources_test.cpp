// SPDX-License-Identifier: MIT
// The source files of the report: found at their recorded paths, or for a moved tree under
// --source-dir by the path from the compile directory, then by the last components; embedded
// only within their bounds, and each one left out says why.
#include "html/page_sources.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "html/source_lines.h"
#include "html/source_locator.h"
#include "page_files.h"

namespace {

using memusagestat::SourceBounds;
using memusagestat::SourceLines;
using memusagestat::SourceLocator;
using memusagestat::sources_json;

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// A report's sites and frames naming `files` (one site per file, its innermost frame at line
// 1), each site having allocated `allocated[i]` bytes.
nlohmann::json frames_of(const std::vector<std::string>& files) {
    nlohmann::json frames = nlohmann::json::array();
    for (const std::string& file : files)
        frames.push_back({{"function", "f"}, {"file", file}, {"line", 1}, {"module", "m"}});
    frames.push_back({{"function", "g"}, {"file", nullptr}, {"line", nullptr}, {"module", "m"}});
    return frames;
}

nlohmann::json sites_of(const std::vector<uint64_t>& allocated) {
    nlohmann::json sites = nlohmann::json::array();
    for (size_t i = 0; i < allocated.size(); ++i)
        sites.push_back({{"frames", {i, allocated.size()}}, {"allocated", allocated[i]}});
    return sites;
}

TEST(SourceLocator, AFileAtItsRecordedPathIsReadThere) {
    report_test::Scratch scratch;
    write_text(scratch / "a.c", "int a;\n");
    const SourceLocator locator(scratch / "elsewhere");
    EXPECT_EQ(locator.locate(scratch / "a.c", "/nowhere"), scratch / "a.c");
    EXPECT_EQ(SourceLocator().locate(scratch / "missing.c", ""), "");
}

TEST(SourceLocator, AMovedTreeIsFoundByThePathFromTheCompileDirectoryThenByTheLastComponents) {
    report_test::Scratch scratch;
    ::mkdir((scratch / "moved").c_str(), 0755);
    ::mkdir((scratch / "moved/src").c_str(), 0755);
    ::mkdir((scratch / "moved/lib").c_str(), 0755);
    write_text(scratch / "moved/src/a.c", "int a;\n");
    write_text(scratch / "moved/lib/a.c", "int b;\n");
    const SourceLocator locator(scratch / "moved/");
    // Built in /build/proj: src/a.c from it, not lib/a.c, though both end in a.c.
    EXPECT_EQ(locator.locate("/build/proj/src/a.c", "/build/proj"), scratch / "moved/src/a.c");
    EXPECT_EQ(locator.locate("/build/proj/lib/a.c", "/build/proj/"), scratch / "moved/lib/a.c");
    // A file outside the compile directory, or none known: by its last components, the
    // longest first ("lib/a.c" before "a.c").
    EXPECT_EQ(locator.locate("/usr/src/x/lib/a.c", "/build/proj"), scratch / "moved/lib/a.c");
    EXPECT_EQ(locator.locate("/usr/src/x/src/a.c", ""), scratch / "moved/src/a.c");
    // DIR is not searched: "a.c" is not at its top.
    EXPECT_EQ(locator.locate("/usr/src/x/a.c", ""), "");
    EXPECT_EQ(locator.locate("/usr/src/x/b.c", "/usr/src"), "");
    // A relative name (a relative compile directory) is under DIR as it is.
    EXPECT_EQ(locator.locate("./src/a.c", "."), scratch / "moved/src/a.c");
}

TEST(SourcesJson, FilesAreEmbeddedWithinTheirBoundsAndEachLeftOutSaysWhy) {
    report_test::Scratch scratch;
    write_text(scratch / "small.c", "int a;\r\nint b;\n");
    write_text(scratch / "large.c", std::string(3000, 'x') + "\n");
    write_text(scratch / "second.c", "int c;\n");
    write_text(scratch / "third.c", std::string(600, 'y') + "\n");
    const std::vector<std::string> files = {scratch / "small.c", scratch / "large.c",
                                            scratch / "missing.c", scratch / "second.c",
                                            scratch / "third.c"};
    SourceLines lines{SourceLocator()};
    SourceBounds bounds;
    bounds.file_bytes = 2000;
    bounds.all_bytes = 600;
    // The most allocated first: small.c, large.c, missing.c, second.c, third.c.
    const nlohmann::json sources = sources_json(sites_of({50, 40, 30, 20, 10}), frames_of(files),
                                                lines, bounds, size_t{1} << 20);
    ASSERT_EQ(sources.size(), 5u);
    EXPECT_EQ(sources[0]["file"], scratch / "small.c");
    EXPECT_EQ(sources[0]["path"], scratch / "small.c");
    EXPECT_EQ(sources[0]["lines"], nlohmann::json({"int a;", "int b;"}));
    EXPECT_EQ(sources[0]["bytes"], 15);
    EXPECT_TRUE(sources[0]["omitted"].is_null());
    EXPECT_TRUE(sources[1]["lines"].is_null());
    EXPECT_EQ(sources[1]["omitted"], "larger than the 1 KB the report takes of a file");
    EXPECT_TRUE(sources[2]["path"].is_null());
    EXPECT_NE(sources[2]["omitted"].get<std::string>().find("not found on this machine"),
              std::string::npos);
    EXPECT_EQ(sources[3]["lines"], nlohmann::json({"int c;"}));
    // 600 bytes for all: third.c would go past them.
    EXPECT_TRUE(sources[4]["lines"].is_null());
    EXPECT_NE(sources[4]["omitted"].get<std::string>().find("room for source files"),
              std::string::npos);

    // What the page has left bounds them too.
    SourceLines again{SourceLocator()};
    const nlohmann::json tight =
        sources_json(sites_of({50, 40, 30, 20, 10}), frames_of(files), again, SourceBounds{}, 10);
    for (const nlohmann::json& file : tight) EXPECT_TRUE(file["lines"].is_null()) << file;
}

TEST(SourcesJson, AFileNotFoundUnderTheSourceDirectorySaysWhereItWasLookedFor) {
    report_test::Scratch scratch;
    SourceLines lines{SourceLocator(scratch / "")};
    const nlohmann::json sources = sources_json(sites_of({1}), frames_of({"/gone/a.c"}), lines,
                                                SourceBounds{}, size_t{1} << 20);
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0]["omitted"],
              "not found, nor under " + (scratch / "").substr(0, (scratch / "").size() - 1));
}

TEST(SourceLines, ALineIsCutAndTheWholeFileKept) {
    report_test::Scratch scratch;
    write_text(scratch / "long.c", std::string(300, 'z') + "\nshort\n");
    SourceLines lines{SourceLocator()};
    const std::optional<std::string> first = lines.line(scratch / "long.c", "", 1);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->size(), SourceLines::kMaxLineBytes + 3);  // and "…"
    EXPECT_EQ(lines.line(scratch / "long.c", "", 2), "short");
    EXPECT_FALSE(lines.line(scratch / "long.c", "", 3));
    EXPECT_EQ(lines.file(scratch / "long.c", "").lines[0].size(), 300u);
}

}  // namespace
