// SPDX-License-Identifier: MIT
// Allocation sites end to end: fixtures with allocations at known lines run with
// MEMUSAGE_SITES, and memusagestat --sites names the exact file:line of each, with the
// figures the fixture's comments promise. With debug information, without it (function
// names from the symbol table), stripped (module+offset), in C and in C++.
#include <gtest/gtest.h>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kC = "sites_leaks.c";
const std::string kLibrary = "sites_library.c";
const std::string kCpp = "sites_new.cpp";

// The report of one run of a fixture with allocation sites.
std::string report_of_run(const std::vector<std::string>& argv) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites(argv, sites);
    EXPECT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    EXPECT_TRUE(report.exited_zero()) << report.err;
    EXPECT_EQ(report.err, "");
    return report.out;
}

// The entry of `section` whose stack has `frame`, with `figures` in its header.
void expect_site(const std::string& report, const std::string& section, const std::string& frame,
                 const std::string& figures) {
    std::vector<Entry> entries = entries_of(report);
    const Entry* entry = find_entry(entries, section, frame);
    ASSERT_NE(entry, nullptr) << "no site with \"" << frame << "\" under \"" << section
                              << "\" in:\n"
                              << report;
    EXPECT_NE(entry->header.find(" " + figures), std::string::npos)
        << "want \"" << figures << "\" in:\n"
        << entry->text();
}

TEST(SitesReport, NamesTheLineOfEveryLeakInACProgramWithDebugInformation) {
    std::string report = report_of_run({fixture("sites_fixture_c"), library("debug")});
    expect_site(report, kLeakRanking, "at leak_direct (" + location(kC, "direct") + ")",
                "1000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at xmalloc (" + location(kC, "wrapper_inside") + ")",
                "2000 bytes in 1 block");
    expect_site(report, kLeakRanking,
                "by leak_through_wrapper (" + location(kC, "wrapper_call") + ")",
                "2000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at thread_leak (" + location(kC, "thread") + ")",
                "3000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at lib_leak (" + location(kLibrary, "library") + ")",
                "4000 bytes in 1 block");
    expect_site(report, kLeakRanking,
                "at inlined_helper (" + location(kC, "inlined_inside") + ") [inlined]",
                "5000 bytes in 1 block");
    expect_site(report, kLeakRanking, "by leak_inlined (" + location(kC, "inlined_call") + ")",
                "5000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at after_peak (" + location(kC, "after_peak") + ")",
                "50000 bytes in 1 block");
    EXPECT_EQ(report.find("libmemusage"), std::string::npos) << "the collector's own frames";
    // Stacks end at main, or at the thread's own start function.
    std::vector<Entry> entries = entries_of(report);
    const Entry* direct = find_entry(entries, kLeakRanking, "at leak_direct (");
    ASSERT_NE(direct, nullptr);
    ASSERT_EQ(direct->stack.size(), 2u) << direct->text();
    EXPECT_TRUE(direct->stack[1].starts_with("by main (")) << direct->text();
    const Entry* threaded = find_entry(entries, kLeakRanking, "at thread_leak (");
    ASSERT_NE(threaded, nullptr);
    EXPECT_EQ(threaded->stack.size(), 1u) << threaded->text();
}

TEST(SitesReport, BytesAtThePeakAreThoseOfThatMomentNotOfTheEnd) {
    std::string report = report_of_run({fixture("sites_fixture_c"), library("debug")});
    std::vector<Entry> entries = entries_of(report);
    // The peak block was freed before exit; the one allocated after the peak was kept.
    const std::string peak = "at make_peak (" + location(kC, "peak") + ")";
    const std::string after = "at after_peak (" + location(kC, "after_peak") + ")";
    expect_site(report, kPeakRanking, peak, "100000 bytes (");
    EXPECT_EQ(find_entry(entries, kLeakRanking, peak), nullptr) << report;
    EXPECT_EQ(find_entry(entries, kPeakRanking, after), nullptr) << report;
    expect_site(report, kPeakRanking, "at leak_direct (" + location(kC, "direct") + ")",
                "1000 bytes (");
    expect_site(report, kAllocatedRanking, peak, "100000 bytes in 1 call");
    ASSERT_FALSE(entries.empty());
    EXPECT_NE(entries.front().text().find(peak), std::string::npos)
        << "the largest share of the peak comes first:\n"
        << report;
}

TEST(SitesReport, WithoutDebugInformationFunctionsComeFromTheSymbolTable) {
    std::string report = report_of_run({fixture("sites_fixture_c_nodebug"), library("nodebug")});
    std::string program = " (in " + fixture("sites_fixture_c_nodebug") + ")";
    expect_site(report, kLeakRanking, "at leak_direct" + program, "1000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at xmalloc" + program, "2000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at thread_leak" + program, "3000 bytes in 1 block");
    expect_site(report, kLeakRanking, "at lib_leak (in " + library("nodebug") + ")",
                "4000 bytes in 1 block");
}

TEST(SitesReport, WithoutSymbolsFramesAreModulePlusOffset) {
    std::string report = report_of_run({fixture("sites_fixture_c_stripped"), library("nodebug")});
    std::vector<Entry> entries = entries_of(report);
    const std::string module = "at " + fixture("sites_fixture_c_stripped") + "+0x";
    bool found = false;
    for (const Entry& entry : entries)
        found = found || (entry.section.starts_with(kLeakRanking) && !entry.stack.empty() &&
                          entry.stack[0].starts_with(module) &&
                          entry.header.find(" 1000 bytes in 1 block") != std::string::npos);
    EXPECT_TRUE(found) << report;
}

TEST(SitesReport, CppLeaksThroughOperatorNewAndTheStandardLibraryNameTheProgramsLine) {
    std::string report = report_of_run({fixture("sites_fixture_cpp")});
    expect_site(report, kLeakRanking, "at leak_through_new() (" + location(kCpp, "new") + ")",
                "600 bytes in 1 block");
    expect_site(report, kLeakRanking,
                "at leak_through_vector() (" + location(kCpp, "vector_storage") + ")",
                "4000 bytes in 1 block");
    expect_site(report, kLeakRanking,
                "at leak_through_vector() (" + location(kCpp, "vector_object") + ")",
                "24 bytes in 1 block");
    std::vector<Entry> entries = entries_of(report);
    const Entry* through_new =
        find_entry(entries, kLeakRanking, "leak_through_new() (" + location(kCpp, "new"));
    ASSERT_NE(through_new, nullptr);
    EXPECT_TRUE(through_new->stack[0].ends_with(" via operator new")) << through_new->text();
    const Entry* through_vector = find_entry(
        entries, kLeakRanking, "leak_through_vector() (" + location(kCpp, "vector_storage"));
    ASSERT_NE(through_vector, nullptr);
    EXPECT_TRUE(through_vector->stack[0].ends_with(" via std::vector::resize"))
        << through_vector->text();
}

// Inlined calls nest: the program's function inlined into main, the standard library's
// inlined into it. Each level is a frame, and the folding stops at the program's own.
TEST(SitesReport, OptimizedCppShowsEveryInlinedLevel) {
    std::string report = report_of_run({fixture("sites_fixture_inlined")});
    const std::string source = "sites_inlined.cpp";
    const std::string inlined = "at fill_numbers (" + location(source, "push_back") + ") [inlined]";
    expect_site(report, kLeakRanking, inlined, "4096 bytes in 1 block");
    std::vector<Entry> entries = entries_of(report);
    const Entry* entry = find_entry(entries, kLeakRanking, inlined);
    ASSERT_NE(entry, nullptr) << report;
    ASSERT_EQ(entry->stack.size(), 2u) << entry->text();
    EXPECT_EQ(entry->stack[0], inlined + " via std::vector::push_back");
    EXPECT_EQ(entry->stack[1], "by main (" + location(source, "call") + ")");
}

TEST(SitesReport, CppWithoutDebugInformationStillNamesFunctions) {
    std::string report = report_of_run({fixture("sites_fixture_cpp_nodebug")});
    expect_site(report, kLeakRanking,
                "at leak_through_new() (in " + fixture("sites_fixture_cpp_nodebug") + ")",
                "600 bytes in 1 block");
}

// With mmap tracing the heap peak holds the traced maps, which have no sites: the report's
// percentages then add up to less than 100 and say why (they said nothing: a python run with
// -m showed its sites holding a quarter of the peak).
TEST(SitesReport, BytesAtThePeakThatNoSiteHoldsAreSaidToBeTracedMaps) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_mmap")}, sites, {"MEMUSAGE_TRACE_MMAP=1"});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("heap peak: 66536 bytes;"), std::string::npos) << report.out;
    expect_site(report.out, kPeakRanking, "main (" + location("sites_mmap.c", "block") + ")",
                "1000 bytes (1.5%)");
    EXPECT_NE(report.out.find("(65536 bytes held at the heap peak belong to no site: memory "
                              "maps traced with -m have none)"),
              std::string::npos)
        << report.out;
    // Without maps every byte at the peak has a site, and nothing is said.
    std::string plain = scratch / "plain";
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_mmap")}, plain).exited_zero());
    Outcome without = report_of(plain);
    EXPECT_EQ(without.out.find("belong to no site"), std::string::npos) << without.out;
}

TEST(SitesReport, TopLimitsEachRanking) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    ASSERT_TRUE(
        run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites).exited_zero());
    Outcome report = report_of(sites, {"--top=2"});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<Entry> entries = entries_of(report.out);
    for (const std::string& section : {kPeakRanking, kLeakRanking, kAllocatedRanking}) {
        int count = 0;
        for (const Entry& entry : entries) count += entry.section.starts_with(section);
        EXPECT_EQ(count, 2) << section << " in:\n" << report.out;
    }
    EXPECT_NE(report.out.find("(top 2 of "), std::string::npos) << report.out;
    Outcome zero = report_of(sites, {"--top=0"});
    EXPECT_EQ(WEXITSTATUS(zero.status), 1);
    EXPECT_NE(zero.err.find("--top"), std::string::npos) << zero.err;
}

// libunwind linked the ordinary way would take over _Unwind_RaiseException for the whole
// program; loaded privately, the program's exceptions keep libgcc's unwinder.
TEST(SitesReport, ExceptionsThrownThroughManyFramesKeepWorking) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_exceptions"), "300"}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.out << run.err;
    EXPECT_EQ(run.out, "caught 300 of 300\n");
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("at descend(int, int) ("), std::string::npos) << report.out;
}

// Four paths to one allocation whose stacks are alike on top (the same stack pointer at
// the allocation): each path's site has its own blocks, none of another's.
TEST(SitesReport, PathsWhoseStacksDifferOnlyDeepDownAreSitesApart) {
    for (const char* build : {"sites_fixture_alike_stacks", "sites_fixture_alike_stacks_no_fp"}) {
        SCOPED_TRACE(build);
        std::string report = report_of_run({fixture(build), "1000"});
        std::vector<Entry> entries = entries_of(report);
        struct Path {
            const char* via;
            const char* outer;
            const char* figures;
        };
        for (const Path& path :
             {Path{"via_left", "outer_first", "2000000 bytes in 2000 calls"},
              Path{"via_right", "outer_first", "4000000 bytes in 2000 calls"},
              Path{"via_left", "outer_second", "6000000 bytes in 2000 calls"},
              Path{"via_right", "outer_second", "8000000 bytes in 2000 calls"}}) {
            const Entry* found = nullptr;
            for (const Entry& entry : entries) {
                if (entry.section.rfind(kAllocatedRanking, 0) != 0) continue;
                std::string stack = entry.text();
                if (stack.find(std::string("by ") + path.via + " (") != std::string::npos &&
                    stack.find(std::string("by ") + path.outer + " (") != std::string::npos)
                    found = &entry;
            }
            ASSERT_NE(found, nullptr) << path.via << " from " << path.outer << " in:\n" << report;
            EXPECT_NE(found->header.find(std::string(" ") + path.figures), std::string::npos)
                << "want \"" << path.figures << "\" in:\n"
                << found->text();
        }
    }
}

}  // namespace
}  // namespace sites_test
