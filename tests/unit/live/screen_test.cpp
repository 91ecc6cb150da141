// SPDX-License-Identifier: MIT
// The view's model (rates, the heap's course, thread order) and its layout in 80x24.
#include <gtest/gtest.h>

#include "live/figure_history.h"
#include "live/process_table.h"
#include "live/screen_text.h"
#include "memusage/stats.h"

namespace {

using memusage::Call;
using memusage::live_format::Figures;
using namespace memusage::live;

Figures reading(uint64_t second, uint64_t heap, uint64_t mallocs, uint64_t bytes) {
    Figures figures{};
    figures.publications = second + 1;
    figures.published_ns = second * 1'000'000'000;
    figures.heap_now = heap;
    figures.heap_peak = heap;
    figures.calls[static_cast<unsigned>(Call::malloc)] = mallocs;
    figures.bytes[static_cast<unsigned>(Call::malloc)] = bytes;
    figures.threads = 2;
    figures.thread_rows = 2;
    figures.rows[0] = {101, 10, 5000, 1000, 4000, 4500};
    figures.rows[1] = {102, 50, 3000, 0, 3000, 6000};
    return figures;
}

TEST(FigureHistory, RatesAreBetweenTheLastTwoReadings) {
    FigureHistory history;
    history.add(reading(0, 100, 10, 1000));
    EXPECT_EQ(history.allocations_per_second(), 0);
    history.add(reading(2, 200, 30, 5000));
    EXPECT_DOUBLE_EQ(history.allocations_per_second(), 10);
    EXPECT_DOUBLE_EQ(history.bytes_per_second(), 2000);
    // The same publication again adds nothing.
    history.add(reading(2, 200, 30, 5000));
    EXPECT_EQ(history.heap_course().size(), 2u);
}

TEST(FigureHistory, KeepsTheLastMinute) {
    FigureHistory history;
    for (uint64_t second = 0; second < 100; ++second) history.add(reading(second, second, 0, 0));
    std::vector<uint64_t> course = history.heap_course();
    ASSERT_EQ(course.size(), FigureHistory::kSeconds);
    EXPECT_EQ(course.front(), 40u);
    EXPECT_EQ(course.back(), 99u);
}

TEST(FigureHistory, ThreadsInTheOrderAsked) {
    FigureHistory history;
    history.add(reading(0, 0, 0, 0));
    auto name = [](uint64_t tid) { return "t" + std::to_string(tid); };
    EXPECT_EQ(history.threads(ThreadOrder::held, name).front().tid, 101u);
    EXPECT_EQ(history.threads(ThreadOrder::peak, name).front().tid, 102u);
    EXPECT_EQ(history.threads(ThreadOrder::calls, name).front().tid, 102u);
    EXPECT_EQ(history.threads(ThreadOrder::tid, name).front().tid, 101u);
    EXPECT_EQ(history.threads(ThreadOrder::held, name).front().name, "t101");
    EXPECT_EQ(next_order(ThreadOrder::tid), ThreadOrder::held);
}

TEST(Sparkline, ScalesToTheTopValue) {
    EXPECT_EQ(sparkline({0, 7, 14}, false), "_=#");
    EXPECT_EQ(sparkline({0, 0}, false), "__");
    EXPECT_EQ(sparkline({1, 8}, true), "\u2582\u2588");
}

TEST(Screen, FitsEightyByTwentyFour) {
    FigureHistory history;
    history.add(reading(0, 1000, 10, 1000));
    history.add(reading(1, 123456789012ULL, 20, 99999999));
    ScreenState state;
    state.program = "a_program_with_a_very_long_name_indeed";
    state.pid = 4194304;
    state.elapsed_seconds = 3725;
    std::vector<ThreadLine> threads(40, ThreadLine{4194304, "a_thread_name_too_long", -5, 7, 1});
    std::vector<std::string> lines = screen_lines(history, state, threads, 80, 24);
    ASSERT_EQ(lines.size(), 24u);
    for (const std::string& line : lines) EXPECT_LE(line.size(), 80u) << line;
    EXPECT_NE(lines[0].find("elapsed 1:02:05"), std::string::npos) << lines[0];
    EXPECT_NE(lines[2].find("123456789012 bytes"), std::string::npos) << lines[2];
    EXPECT_EQ(lines[23].rfind("sorted by held", 0), 0u) << lines[23];
    EXPECT_NE(lines[22].find("a_thread_name_to"), std::string::npos) << lines[22];
}

TEST(Screen, AProgramFollowedThroughExecIsSaidUnderTheTitleTheRowsKeepTheirPlaces) {
    FigureHistory history;
    history.add(reading(0, 4096, 1, 4096));
    ScreenState state;
    state.program = "python3.12";
    state.pid = 42;
    std::vector<ThreadLine> threads{ThreadLine{42, "python3.12", 4096, 4096, 1}};
    std::vector<std::string> before = screen_lines(history, state, threads, 80, 24);
    EXPECT_EQ(before[1], "");
    state.exec_from = "bash";
    std::vector<std::string> lines = screen_lines(history, state, threads, 80, 24);
    EXPECT_EQ(lines[1], "now: python3.12 (exec, was bash)");
    lines[1].clear();
    EXPECT_EQ(lines, before);
    // Before its first figures too.
    EXPECT_EQ(screen_lines(FigureHistory(), state, threads, 80, 24)[1],
              "now: python3.12 (exec, was bash)");
}

TEST(Screen, AProgramExecdWithoutTheCollectorIsNamedAndNoFiguresAreShown) {
    ScreenState state;
    state.program = "live_fixture";
    state.pid = 42;
    state.exec_from = "sh";
    state.not_profiled = true;
    std::vector<std::string> lines = screen_lines(FigureHistory(), state, {}, 80, 24);
    EXPECT_EQ(lines[0].rfind("memusage: live_fixture (pid 42)", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1], "now: live_fixture (exec, not profiled)");
    EXPECT_EQ(lines[2], "no live figures: the program it exec'd publishes none");
}

TEST(Screen, WithSitesTheThreadsTakeAFewRowsAndTheSitesTheRest) {
    FigureHistory history;
    history.add(reading(0, 4096, 1, 4096));
    ScreenState state;
    state.program = "server";
    state.sites = true;
    std::vector<ThreadLine> threads(10, ThreadLine{7, "worker", 100, 200, 3});
    std::vector<SiteLine> sites;
    for (uint64_t i = 0; i < 10; ++i)
        sites.push_back(
            {1000 - i, i + 1,
             "site_" + std::to_string(i) + " (server.c:1" + std::string(80, 'x') + ")"});
    std::vector<std::string> lines = screen_lines(history, state, threads, 80, 24, sites);
    ASSERT_EQ(lines.size(), 24u);
    for (const std::string& line : lines) EXPECT_LE(line.size(), 80u) << line;
    // Rows 11-13 the threads (kThreadRowsWithSites), 14 blank, 15 the sites' header.
    EXPECT_NE(lines[13].find("worker"), std::string::npos) << lines[13];
    EXPECT_EQ(lines[14], "");
    EXPECT_NE(lines[15].find("top sites held now"), std::string::npos) << lines[15];
    EXPECT_EQ(lines[16].rfind("            1000          1  site_0 (server.c:1x", 0), 0u)
        << lines[16];
    // As many sites as fit above the keys: 7 of the 10.
    EXPECT_EQ(lines[22].rfind("             994          7  site_6", 0), 0u) << lines[22];
    EXPECT_EQ(lines[23].rfind("sorted by held", 0), 0u) << lines[23];

    // Sites on, none holding anything yet; sites off, no table.
    lines = screen_lines(history, state, threads, 80, 24, {});
    EXPECT_NE(lines[16].find("(none)"), std::string::npos) << lines[16];
    state.sites = false;
    lines = screen_lines(history, state, threads, 80, 24, sites);
    for (const std::string& line : lines) EXPECT_EQ(line.find("site"), std::string::npos) << line;
    EXPECT_NE(lines[20].find("worker"), std::string::npos) << "the threads take the rows";
}

TEST(ProcessTable, OneLinePerProcess) {
    Figures figures = reading(0, 4096, 1, 4096);
    std::vector<RunningProcess> processes = {{42, "server", 0, figures}};
    std::string table = process_table(processes, 3'723'000'000'000);
    EXPECT_NE(
        table.find("      42  server                 2           4096           4096    1:02:03"),
        std::string::npos)
        << table;
    EXPECT_EQ(process_table({}, 0), "no profiled process is running (of this user's)\n");
}

}  // namespace
