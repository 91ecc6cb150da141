// SPDX-License-Identifier: MIT
// Allocation sites across processes and endings: a forked or exec'd child never writes
// its parent's sites file; a run dying of a fatal signal still leaves a readable one; a
// killed run, a damaged file, a foreign file, a module changed or gone since the run get
// clear messages, never a crash.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kC = "sites_leaks.c";

int exit_code(const Outcome& outcome) {
    return WIFEXITED(outcome.status) ? WEXITSTATUS(outcome.status) : -1;
}

class ChildProcesses : public ::testing::TestWithParam<std::string> {};

TEST_P(ChildProcesses, NeverWriteTheParentsFile) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug"), GetParam()}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("at make_peak (" + location(kC, "peak") + ")"), std::string::npos)
        << "the parent's own sites:\n"
        << report.out;
    EXPECT_EQ(report.out.find(location(kC, "child")), std::string::npos)
        << "the child's allocation:\n"
        << report.out;
}

INSTANTIATE_TEST_SUITE_P(ForkAndExec, ChildProcesses, ::testing::Values("fork", "exec"));

TEST(SitesEndings, ARunDyingOfAFatalSignalLeavesAReadableFile) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug"), "segv"}, sites);
    ASSERT_EQ(run.signal(), SIGSEGV);
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<Entry> entries = entries_of(report.out);
    const Entry* leak =
        find_entry(entries, kLeakRanking, "at leak_direct (" + location(kC, "direct") + ")");
    ASSERT_NE(leak, nullptr) << report.out;
    EXPECT_NE(leak->header.find(" 1000 bytes in 1 block"), std::string::npos) << leak->text();
    EXPECT_NE(report.out.find("Note: the program died of a fatal signal"), std::string::npos)
        << report.out;
}

TEST(SitesEndings, AKilledRunLeavesAnEmptyFileThatIsRefusedClearly) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug"), "kill"}, sites);
    ASSERT_EQ(run.signal(), SIGKILL);
    Outcome report = report_of(sites);
    EXPECT_EQ(exit_code(report), 1);
    EXPECT_NE(report.err.find("the sites file is empty"), std::string::npos) << report.err;
    EXPECT_EQ(report.out, "");
}

// A good file, cut at many lengths, and a foreign one: a message and exit 1, every time.
TEST(SitesBadInput, TruncatedAndForeignFilesGetAMessageAndExitOne) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    ASSERT_TRUE(
        run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites).exited_zero());
    std::ifstream in(sites, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 200u);
    std::string cut = scratch / "cut";
    for (size_t length : {size_t{1}, size_t{47}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
        std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), length);
        Outcome report = report_of(cut);
        EXPECT_EQ(exit_code(report), 1) << "cut at " << length;
        EXPECT_NE(report.err.find(cut + ": "), std::string::npos) << report.err;
    }
    std::string foreign = scratch / "foreign";
    std::ofstream(foreign) << std::string(4096, 'x');
    Outcome report = report_of(foreign);
    EXPECT_EQ(exit_code(report), 1);
    EXPECT_NE(report.err.find("not a memusage sites file"), std::string::npos) << report.err;
    Outcome missing = report_of(scratch / "missing");
    EXPECT_EQ(exit_code(missing), 1);
    EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
}

// The library the run loaded is replaced (another build) or removed before the report.
class ModuleSinceTheRun : public ::testing::TestWithParam<std::string> {};

TEST_P(ModuleSinceTheRun, GetsANoteAndModulePlusOffset) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    std::string copy = scratch / "libcopy.so";
    std::filesystem::copy_file(library("debug"), copy);
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_c"), copy}, sites).exited_zero());
    std::filesystem::remove(copy);
    if (GetParam() == "changed") std::filesystem::copy_file(library("nodebug"), copy);
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::string note = GetParam() == "changed" ? " has changed since the run" : " is gone";
    EXPECT_NE(report.out.find("Note: " + copy + note), std::string::npos) << report.out;
    bool found = false;
    for (const Entry& entry : entries_of(report.out))
        found = found || (entry.section.starts_with(kLeakRanking) && !entry.stack.empty() &&
                          entry.stack[0].starts_with("at " + copy + "+0x") &&
                          entry.header.find(" 4000 bytes in 1 block") != std::string::npos);
    EXPECT_TRUE(found) << report.out;
    // The rest of the stack is still symbolised.
    EXPECT_NE(report.out.find("at leak_direct (" + location(kC, "direct") + ")"), std::string::npos)
        << report.out;
}

INSTANTIATE_TEST_SUITE_P(ChangedAndGone, ModuleSinceTheRun, ::testing::Values("changed", "gone"));

}  // namespace
}  // namespace sites_test
