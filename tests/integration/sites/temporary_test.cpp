// SPDX-License-Identifier: MIT
// Temporary blocks (freed before their thread's next heap call, heaptrack's meaning),
// counted by the collector per site: sites_diff.c frees five blocks each before the next
// allocation, and a pair in allocation order (neither: the first's free comes between the
// second's allocation and its free). sites_temporary_rules.c is counted against heaptrack.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "go_pprof.h"
#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

const std::string kSource = "sites_diff.c";

TEST(Temporary, TheReportCountsThemPerSiteAndInTotal) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_diff")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    const std::string& text = report.out;
    EXPECT_NE(text.find("\nTemporary blocks (freed before their thread's next allocation): 5 of 9 "
                        "(55.6%), 1500 bytes\n"),
              std::string::npos)
        << text;
    std::vector<Entry> entries = entries_of(text);
    const std::string ranking = "Temporary blocks (freed before the thread's next allocation)";
    const Entry* scratch_blocks = find_entry(entries, ranking, location(kSource, "scratch"));
    ASSERT_NE(scratch_blocks, nullptr) << text;
    EXPECT_EQ(scratch_blocks->header, "#1 5 blocks of 5, 1500 bytes");
    EXPECT_EQ(find_entry(entries, ranking, location(kSource, "pair_second")), nullptr) << text;
    EXPECT_EQ(find_entry(entries, ranking, location(kSource, "pair_first")), nullptr) << text;
    EXPECT_EQ(find_entry(entries, ranking, location(kSource, "buffer")), nullptr) << text;
}

TEST(Temporary, AnotherThreadsAllocationDoesNotCount) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_temporary_threads")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<Entry> entries = entries_of(report.out);
    const std::string ranking = "Temporary blocks (freed before the thread's next allocation)";
    const std::string source = "sites_temporary_threads.c";
    const Entry* main_block = find_entry(entries, ranking, location(source, "main_block"));
    ASSERT_NE(main_block, nullptr) << report.out;
    EXPECT_NE(main_block->header.find(" 1 block of 1, 128 bytes"), std::string::npos)
        << main_block->header;
    EXPECT_EQ(find_entry(entries, ranking, location(source, "other_thread")), nullptr)
        << report.out;
}

TEST(Temporary, TheDriversSummaryWithSitesSaysHowMany) {
    Scratch scratch;
    Outcome run = run_memusage({"--sites", fixture("sites_fixture_diff")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    EXPECT_NE(
        run.err.find("Temporary blocks (freed before their thread's next allocation): 5 of 9"),
        std::string::npos)
        << run.err;
}

TEST(Temporary, PprofHasThemAsSampleTypes) {
    Scratch scratch;
    std::string profile = scratch / "run.pb.gz";
    Outcome run =
        run_memusage({"--pprof=" + profile, fixture("sites_fixture_diff")}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome objects =
        go_pprof({"-top", "-sample_index=temporary_objects"}, profile, scratch.path());
    ASSERT_TRUE(objects.exited_zero()) << objects.err;
    std::map<std::string, std::string> rows = top_rows(objects.out);
    EXPECT_EQ(rows["scratch_blocks"], "5") << objects.out;
    EXPECT_EQ(rows.count("pair_second"), 0u) << objects.out;
    EXPECT_EQ(rows.count("pair_first"), 0u) << objects.out;
    Outcome space =
        go_pprof({"-top", "-unit=B", "-sample_index=temporary_space"}, profile, scratch.path());
    EXPECT_EQ(top_rows(space.out)["scratch_blocks"], "1500B") << space.out;
}

// heaptrack's temporary allocations by function, from its folded stacks weighed by them
// ("main (file.c);function (file.c); 100"): the innermost frame's function.
std::map<std::string, uint64_t> heaptrack_temporary(const std::string& program,
                                                    const std::string& scratch) {
    const std::string data = scratch + "/heaptrack";
    Outcome run = collector_test::run({"/usr/bin/heaptrack", "-o", data, program}, {}, "");
    EXPECT_TRUE(run.exited_zero()) << run.out << run.err;
    const std::string folded = scratch + "/heaptrack.folded";
    Outcome print = collector_test::run({"/usr/bin/heaptrack_print", "-f", data + ".zst", "-F",
                                         folded, "--flamegraph-cost-type", "temporary"},
                                        {}, "");
    EXPECT_TRUE(print.exited_zero()) << print.out << print.err;
    std::map<std::string, uint64_t> by_function;
    std::ifstream in(folded);
    for (std::string line; std::getline(in, line);) {
        size_t space = line.rfind(' ');
        if (space == std::string::npos) continue;
        std::string stack = line.substr(0, space);
        while (stack.ends_with(";")) stack.pop_back();
        std::string innermost = stack.substr(stack.rfind(';') + 1);
        innermost = innermost.substr(0, innermost.find(" ("));
        by_function[innermost] += std::stoull(line.substr(space + 1));
    }
    return by_function;
}

// Where heaptrack's matching of a free to the latest allocation (by size and stack) is
// exact, its counts are ours; where it is not, ours count the block itself.
TEST(Temporary, TheSameAsHeaptrackWhereItsMatchingIsExact) {
    Scratch scratch;
    const std::string program = fixture("sites_fixture_temporary_rules");
    std::map<std::string, uint64_t> theirs = heaptrack_temporary(program, scratch.path());
    std::string profile = scratch / "run.pb.gz";
    Outcome run = run_memusage({"--pprof=" + profile, program}, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome top = go_pprof({"-top", "-sample_index=temporary_objects"}, profile, scratch.path());
    ASSERT_TRUE(top.exited_zero()) << top.err;
    std::map<std::string, std::string> ours = top_rows(top.out);
    auto our_count = [&](const std::string& function) {
        return ours.count(function) != 0 ? std::stoull(ours[function]) : 0ull;
    };
    for (const char* function : {"freed_at_once", "other_freed_between", "batch_freed_in_order"})
        EXPECT_EQ(our_count(function), theirs[function]) << function << "\n" << top.out;
    EXPECT_EQ(our_count("freed_at_once"), 100u) << top.out;
    // A block grown by realloc and freed is one temporary block. heaptrack sees the realloc
    // as a free and an allocation: the block freed at once, and the new one freed next,
    // one more for each of the 100 reallocs.
    EXPECT_EQ(our_count("grown_then_freed"), 100u) << top.out;
    EXPECT_EQ(theirs["grown_then_freed"], our_count("grown_then_freed") + 100);
    EXPECT_EQ(our_count("other_freed_between"), 0u) << top.out;
    EXPECT_EQ(our_count("batch_freed_in_order"), 0u) << top.out;
    // Each new buffer is freed only after the next was allocated: none is temporary but the
    // one malloc(8) freed at once. heaptrack takes each buffer's free for that of the next
    // one, of the same size and stack: 99 more.
    EXPECT_EQ(our_count("replace_previous"), 1u) << top.out;
    EXPECT_EQ(theirs["replace_previous"], 100u);
}

}  // namespace
}  // namespace sites_test
