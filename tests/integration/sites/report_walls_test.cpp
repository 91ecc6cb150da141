// SPDX-License-Identifier: MIT
// Reports that stay readable (sites_walls.c): --sites=N bounds the leak report's listing as
// it bounds the rankings, leaks are listed once when the sites report and the leak report
// come together, a recursion is one line of its stack, and a stack deeper than a report
// shows ends with how many frames are left out.
#include <gtest/gtest.h>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

size_t count_of(const std::string& text, const std::string& part) {
    size_t count = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++count;
    return count;
}

TEST(ReportWalls, LeaksAreBoundedListedOnceAndRecursionFolded) {
    Scratch scratch;
    Outcome run =
        run_memusage({"--sites=5", "--leaks", fixture("sites_fixture_walls")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    const std::string& report = run.err;
    // Eighteen leaking stacks, five listed.
    EXPECT_NE(report.find("Bytes never freed, by stack, largest first (top 5 of 18):"),
              std::string::npos)
        << report;
    std::vector<Entry> entries = entries_of(report);
    size_t listed = 0;
    for (const Entry& entry : entries)
        if (entry.section.starts_with("Bytes never freed")) ++listed;
    EXPECT_EQ(listed, 5u) << report;
    // Once: the sites report leaves its ranking of leaks to the leak report.
    EXPECT_EQ(find_entry(entries, kLeakRanking, "recurse"), nullptr) << report;
    EXPECT_NE(report.find("Bytes still allocated at exit (leaks): in the leak report below"),
              std::string::npos)
        << report;
    EXPECT_EQ(count_of(report, "Bytes never freed, by stack"), 1u) << report;
    // The recursion: one line, the recursive call's, with how many frames it stands for.
    EXPECT_NE(
        report.find("by recurse (" + location("sites_walls.c", "recursive_call") + ") \u00d740\n"),
        std::string::npos)
        << report;
    // ping and pong alternate 41 frames deep: cut, with the frames left out counted.
    EXPECT_NE(report.find(" frames more)\n"), std::string::npos) << report;
}

}  // namespace
}  // namespace sites_test
