// SPDX-License-Identifier: MIT
// memusage --leaks and memusagestat --leaks: the blocks never freed, by stack, largest
// first, each at the exact file:line of the fixture; --leak-exitcode turns leaks into an
// exit status; a program without leaks says so and keeps its own status.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kC = "sites_leaks.c";
const std::string kLeakSection = "Bytes never freed";

int exit_status(const Outcome& run) { return WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1; }

// The report after the summary: from its first line on.
std::string leak_report_in(const std::string& err) {
    for (const char* start : {"\nLeaks: ", "\nNo leaks"}) {
        size_t at = err.find(start);
        if (at != std::string::npos) return err.substr(at + 1);
    }
    return "";
}

TEST(Leaks, ListsEveryLeakAtItsLineLargestFirst) {
    Scratch scratch;
    Outcome leaks = run_memusage(
        {"--color=never", "--leaks", fixture("sites_fixture_c"), library("debug")}, scratch.path());
    ASSERT_TRUE(leaks.exited_zero()) << leaks.err;
    std::string report = leak_report_in(leaks.err);
    ASSERT_TRUE(report.starts_with("Leaks: 65000 bytes in 6 blocks never freed, from 6 stacks"))
        << leaks.err;
    std::vector<Entry> entries = entries_of(report);
    ASSERT_EQ(entries.size(), 6u) << report;
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"at after_peak (" + location(kC, "after_peak") + ")", "50000 bytes in 1 block"},
        {"at inlined_helper (" + location(kC, "inlined_inside") + ") [inlined]",
         "5000 bytes in 1 block"},
        {"at lib_leak (" + location("sites_library.c", "library") + ")", "4000 bytes in 1 block"},
        {"at thread_leak (" + location(kC, "thread") + ")", "3000 bytes in 1 block"},
        {"at xmalloc (" + location(kC, "wrapper_inside") + ")", "2000 bytes in 1 block"},
        {"at leak_direct (" + location(kC, "direct") + ")", "1000 bytes in 1 block"},
    };
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_TRUE(entries[i].section.starts_with(kLeakSection)) << entries[i].text();
        EXPECT_EQ(entries[i].header, "#" + std::to_string(i + 1) + " " + expected[i].second)
            << report;
        ASSERT_FALSE(entries[i].stack.empty()) << report;
        EXPECT_EQ(entries[i].stack[0], expected[i].first) << report;
    }
    EXPECT_NE(report.find("by leak_through_wrapper (" + location(kC, "wrapper_call") + ")"),
              std::string::npos)
        << report;
    // The freed peak block is no leak; stdio's buffer (puts), dlopen's and pthread_create's
    // records are the runtime's.
    EXPECT_EQ(report.find("make_peak"), std::string::npos) << report;
    EXPECT_EQ(report.find("via dlopen"), std::string::npos) << report;
    EXPECT_EQ(report.find("via pthread_create"), std::string::npos) << report;
    EXPECT_NE(report.find("\nNot counted: "), std::string::npos) << report;
    EXPECT_EQ(report.find("puts"), std::string::npos) << report;
    // Only the leak report: no rankings without --sites.
    EXPECT_EQ(leaks.err.find("Allocation sites:"), std::string::npos) << leaks.err;
}

TEST(Leaks, LeakExitcodeIsTheStatusWhenThereAreLeaks) {
    Scratch scratch;
    Outcome run = run_memusage({"--leak-exitcode=42", fixture("sites_fixture_c"), library("debug")},
                               scratch.path());
    EXPECT_EQ(exit_status(run), 42) << run.err;
    EXPECT_NE(run.err.find("\nLeaks: 65000 bytes in 6 blocks"), std::string::npos) << run.err;
    // 0 turns it off, as valgrind's --error-exitcode=0 does.
    Outcome off = run_memusage({"--leak-exitcode=0", fixture("sites_fixture_c"), library("debug")},
                               scratch.path());
    EXPECT_EQ(exit_status(off), 0) << off.err;
}

TEST(Leaks, TheReportFollowsAnUnchangedSummary) {
    Scratch scratch;
    Outcome plain = run_memusage({"--color=never", fixture("sites_fixture_cpp")}, scratch.path());
    Outcome leaks =
        run_memusage({"--color=never", "--leaks", fixture("sites_fixture_cpp")}, scratch.path());
    ASSERT_TRUE(plain.exited_zero()) << plain.err;
    ASSERT_TRUE(leaks.exited_zero()) << leaks.err;
    EXPECT_EQ(leaks.out, plain.out);
    std::string report = leak_report_in(leaks.err);
    ASSERT_TRUE(report.starts_with("Leaks: ")) << leaks.err;
    EXPECT_EQ(collector_test::without_stack_peak(
                  leaks.err.substr(0, leaks.err.size() - report.size() - 1)),
              collector_test::without_stack_peak(plain.err));
    EXPECT_NE(report.find("at leak_through_new() (" + location("sites_new.cpp", "new") +
                          ") via operator new\n"),
              std::string::npos)
        << report;
    EXPECT_TRUE(std::filesystem::is_empty(scratch.path())) << "the private sites file is gone";
}

TEST(Leaks, AProgramWithoutLeaksSaysSoAndKeepsItsStatus) {
    Scratch scratch;
    Outcome run = run_memusage({"--leak-exitcode=42", fixture("sites_fixture_no_leaks"), "3"},
                               scratch.path());
    EXPECT_EQ(exit_status(run), 3) << run.err;
    std::string report = leak_report_in(run.err);
    EXPECT_TRUE(report.starts_with("No leaks: every block the program allocated was freed.\n"))
        << run.err;
    // printf's buffer is left to the C library, which keeps it until exit.
    EXPECT_NE(report.find("\nNot counted: "), std::string::npos) << report;
    EXPECT_EQ(run.out, "copied\n");

    Outcome zero =
        run_memusage({"--leak-exitcode=42", fixture("sites_fixture_no_leaks")}, scratch.path());
    EXPECT_EQ(exit_status(zero), 0) << zero.err;
}

TEST(Leaks, TheSitesReportCountsLeaksAsTheLeakReportDoes) {
    Scratch scratch;
    Outcome run = run_memusage({"--sites", fixture("sites_fixture_no_leaks"), "3"}, scratch.path());
    EXPECT_EQ(exit_status(run), 3) << run.err;
    // printf's buffer is still allocated at exit, and is the C library's, not a leak.
    EXPECT_NE(run.err.find("\nBytes still allocated at exit (leaks):\n   none\n\nNot counted: "),
              std::string::npos)
        << run.err;
}

TEST(Leaks, MemusagestatPrintsTheSameReportFromTheFile) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites, {"--leaks"});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_EQ(report.err, "");
    EXPECT_TRUE(report.out.starts_with("Leaks: 65000 bytes in 6 blocks never freed")) << report.out;
    EXPECT_NE(report.out.find("at leak_direct (" + location(kC, "direct") + ")"), std::string::npos)
        << report.out;
    EXPECT_EQ(report.out.find("Bytes held at the heap peak"), std::string::npos) << report.out;

    Outcome failing = report_of(sites, {"--leaks", "--leak-exitcode=9"});
    EXPECT_EQ(exit_status(failing), 9) << failing.err;
    EXPECT_EQ(failing.out, report.out);
}

TEST(Leaks, BadExitcodesAreRefusedBeforeTheProgramRuns) {
    Scratch scratch;
    for (const char* bad : {"--leak-exitcode=256", "--leak-exitcode=x", "--leak-exitcode=-1"}) {
        Outcome run = run_memusage({bad, fixture("sites_fixture_no_leaks")}, scratch.path());
        EXPECT_EQ(exit_status(run), 1) << bad;
        EXPECT_EQ(run.out, "") << bad;
        EXPECT_NE(run.err.find("invalid exit status"), std::string::npos) << run.err;
    }
}

}  // namespace
}  // namespace sites_test
