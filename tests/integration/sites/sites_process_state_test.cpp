// SPDX-License-Identifier: MIT
// What sites must never do to the program: read or write its descriptors (libunwind
// validates memory through a pipe of its own, at whatever numbers are free when it needs
// one), or leave the collector's own frames in the program's stacks.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

std::string contents(const std::string& path) {
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
}

class ProgramDescriptors : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

// The fixture closes or lays its files over every descriptor above 2, then allocates through
// a function whose frame libunwind must guess (and validate); its files must stay its own,
// during the run and after the collector's exit, and the sites file must still be written,
// with the guessed frame's caller. The same where process_vm_readv is refused (qemu-user, a
// seccomp filter), through which the collector reads the words of guessed frames.
TEST_P(ProgramDescriptors, AreNeverReadOrWritten) {
    const auto& [how, where] = GetParam();
    Scratch scratch;
    std::string input = scratch / "input.txt";
    std::ofstream(input) << "the program's own input line\n";
    std::string sites = scratch / "sites";
    std::vector<std::string> argv = {fixture("sites_fixture_descriptors"), how, scratch.path()};
    if (where == "refused")
        argv.insert(argv.begin(), fixture("sites_fixture_without_process_vm_readv"));
    Outcome run = run_with_sites(argv, sites);
    EXPECT_TRUE(run.exited_zero()) << run.out << run.err;
    EXPECT_NE(run.out.find("intact"), std::string::npos) << run.out;
    EXPECT_EQ(contents(input), "the program's own input line\n");
    EXPECT_EQ(contents(scratch / "output.txt"), "the program's own output\n");
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<Entry> entries = entries_of(report.out);
    const Entry* entry = find_entry(entries, kAllocatedRanking,
                                    location("sites_descriptors_no_tables.c", "no_tables"));
    ASSERT_NE(entry, nullptr) << report.out;
    EXPECT_NE(entry->text().find("by main ("), std::string::npos) << entry->text();
}

INSTANTIATE_TEST_SUITE_P(ClosedOrReused, ProgramDescriptors,
                         ::testing::Combine(::testing::Values("close", "close_range", "dup2"),
                                            ::testing::Values("allowed", "refused")),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// A frame of the collector or of libunwind in any stack of the report.
std::string collector_frame_in(const std::vector<Entry>& entries) {
    for (const Entry& entry : entries)
        for (const std::string& line : entry.stack)
            for (const char* ours : {"libmemusage", "libunwind", "memusage::", "unw_", "_ULx86_64"})
                if (line.find(ours) != std::string::npos) return entry.text();
    return "";
}

// The handler interrupts main's allocations, often inside the collector's own call (and its
// unwinding): its allocations are still one site, the handler's line under the signal
// frame over main's line, and no stack shows a frame of the collector's.
TEST(SignalHandlerSites, AreOneSiteWithoutTheCollectorsFrames) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_signal_handler")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<Entry> entries = entries_of(report.out);
    EXPECT_EQ(collector_frame_in(entries), "") << report.out;
    std::string handler = location("sites_signal_handler.c", "handler");
    int handler_sites = 0;
    for (const Entry& entry : entries) {
        if (!entry.section.starts_with(kAllocatedRanking)) continue;
        bool in_handler = false;
        for (const std::string& line : entry.stack)
            if (line.find(handler) != std::string::npos) in_handler = true;
        if (in_handler) ++handler_sites;
    }
    EXPECT_EQ(handler_sites, 1) << report.out;
}

}  // namespace
}  // namespace sites_test
