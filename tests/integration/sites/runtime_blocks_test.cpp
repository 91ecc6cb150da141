// SPDX-License-Identifier: MIT
// What the leak reports leave to the runtimes, decided block by block from each block's own
// stack: stdio's buffer is the C library's, but the lines getline allocated for the program
// are leaks although they fold into the same shown site; libgcc_s, which glibc loads for
// pthread_exit's and pthread_cancel's unwinding and keeps until exit, is no leak of the
// program's, but what the exiting thread itself leaked is.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

int exit_status(const Outcome& run) { return WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1; }

// From the first line of the leak report ("Leaks: ..." or "No leaks...") on.
std::string leak_report_in(const std::string& err) {
    for (const char* start : {"\nLeaks: ", "\nNo leaks"}) {
        size_t at = err.find(start);
        if (at != std::string::npos) return err.substr(at + 1);
    }
    return "";
}

// The "Not counted: ..." line after a listing that starts at `from`, or "".
std::string not_counted_after(const std::string& text, size_t from = 0) {
    size_t at = text.find("\nNot counted: ", from);
    if (at == std::string::npos) return "";
    return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

TEST(RuntimeBlocks, GetlineBuffersAreLeaksAndStdinsBufferIsNot) {
    Scratch scratch;
    Outcome run = run_memusage(
        {"--color=never", "--leak-exitcode=42", fixture("sites_fixture_getline")}, scratch.path());
    EXPECT_EQ(exit_status(run), 42) << run.err;
    std::string report = leak_report_in(run.err);
    ASSERT_TRUE(report.starts_with("Leaks: 120000 bytes in 1000 blocks never freed, from 1 stack "))
        << run.err;
    std::vector<Entry> entries = entries_of(report);
    ASSERT_EQ(entries.size(), 1u) << report;
    EXPECT_EQ(entries[0].header, "#1 120000 bytes in 1000 blocks") << report;
    ASSERT_FALSE(entries[0].stack.empty()) << report;
    EXPECT_EQ(entries[0].stack[0],
              "at main (" + location("sites_getline.c", "getline") + ") via getline/getdelim")
        << report;
    // Standard input's buffer, allocated on the first getline, is the C library's.
    EXPECT_TRUE(not_counted_after(report).ends_with(
        " in 1 block the C and C++ runtimes keep until exit (stdio buffers, dlopen's and "
        "pthread_create's records, libstdc++'s exception pool)"))
        << report;
}

TEST(RuntimeBlocks, TheSitesReportRanksGetlineBuffersAsLeaks) {
    Scratch scratch;
    Outcome run = run_memusage({"--color=never", "--sites", fixture("sites_fixture_getline")},
                               scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    const std::vector<Entry> entries = entries_of(run.err);
    const Entry* leak = find_entry(entries, kLeakRanking, location("sites_getline.c", "getline"));
    ASSERT_NE(leak, nullptr) << run.err;
    EXPECT_EQ(leak->header, "#1 120000 bytes in 1000 blocks") << run.err;
    size_t ranking = run.err.find(kLeakRanking);
    ASSERT_NE(ranking, std::string::npos) << run.err;
    EXPECT_NE(not_counted_after(run.err, ranking).find(" in 1 block "), std::string::npos)
        << run.err;
}

TEST(RuntimeBlocks, TheLongLivedReportListsGetlineBuffers) {
    Scratch scratch;
    Outcome run = run_memusage(
        {"--color=never", "--long-lived=1ns", fixture("sites_fixture_getline")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    size_t start = run.err.find("\nLong-lived blocks: ");
    ASSERT_NE(start, std::string::npos) << run.err;
    std::string report = run.err.substr(start + 1);
    EXPECT_TRUE(report.starts_with("Long-lived blocks: 1000 blocks (120000 bytes)")) << report;
    EXPECT_NE(not_counted_after(report).find(" in 1 block "), std::string::npos) << report;
}

TEST(RuntimeBlocks, PthreadExitAndCancelLeaveNoLeakOfTheirOwn) {
    Scratch scratch;
    for (const char* mode : {"cancel", "main"}) {
        Outcome run = run_memusage(
            {"--color=never", "--leak-exitcode=42", fixture("sites_fixture_pthread_exit"), mode},
            scratch.path());
        EXPECT_EQ(exit_status(run), 0) << mode << "\n" << run.err;
        std::string report = leak_report_in(run.err);
        EXPECT_TRUE(report.starts_with("No leaks: every block the program allocated was freed.\n"))
            << mode << "\n"
            << run.err;
        // libgcc_s's blocks, with pthread_create's records.
        EXPECT_NE(not_counted_after(report), "") << mode << "\n" << report;
    }
}

TEST(RuntimeBlocks, AThreadThatCallsPthreadExitStillLeaksWhatItLeaked) {
    Scratch scratch;
    for (const char* mode : {"thread", "all"}) {
        Outcome run = run_memusage(
            {"--color=never", "--leak-exitcode=42", fixture("sites_fixture_pthread_exit"), mode},
            scratch.path());
        EXPECT_EQ(exit_status(run), 42) << mode << "\n" << run.err;
        std::string report = leak_report_in(run.err);
        EXPECT_TRUE(report.starts_with("Leaks: 777 bytes in 1 block never freed, from 1 stack "))
            << mode << "\n"
            << run.err;
        std::vector<Entry> entries = entries_of(report);
        ASSERT_EQ(entries.size(), 1u) << report;
        ASSERT_FALSE(entries[0].stack.empty()) << report;
        EXPECT_EQ(entries[0].stack[0],
                  "at leaking_exit (" + location("sites_pthread_exit.c", "thread_leak") + ")")
            << report;
        EXPECT_EQ(report.find("via pthread_exit"), std::string::npos) << report;
    }
}

}  // namespace
}  // namespace sites_test
