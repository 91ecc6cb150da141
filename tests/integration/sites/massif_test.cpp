// SPDX-License-Identifier: MIT
// massif files (memusage --massif, memusagestat --massif) read by Debian's ms_print: the
// peak snapshot is the heap peak of the sites report, its largest branch the report's
// first site, the last snapshot holds what the leak ranking holds, and every 10th snapshot
// between is a tree of what the sites held then.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

std::string with_commas(const std::string& digits) {
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

TEST(Massif, MsPrintShowsThePeakAndTheTopSiteOfTheReport) {
    Scratch scratch;
    std::string massif = scratch / "massif.out", sites = scratch / "sites";
    Outcome run = run_memusage({"--massif=" + massif, "--sites-file=" + sites,
                                fixture("sites_fixture_c"), library("debug")},
                               scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(sites);
    std::smatch peak;
    ASSERT_TRUE(std::regex_search(report.out, peak, std::regex("heap peak: ([0-9]+) bytes")));

    Outcome printed = collector_test::run({"/usr/bin/ms_print", massif}, {}, "");
    ASSERT_TRUE(printed.exited_zero()) << printed.err;
    const std::string& text = printed.out;
    EXPECT_NE(text.find("Command:            " + fixture("sites_fixture_c")), std::string::npos)
        << text;
    // The start, the heap between (every 10th detailed), the peak and the end, detailed.
    std::smatch counts;
    ASSERT_TRUE(std::regex_search(
        text, counts,
        std::regex("Number of snapshots: ([0-9]+)\n Detailed snapshots: \\[(?:[0-9]+, )*([0-9]+) "
                   "\\(peak\\), ([0-9]+)\\]")))
        << text;
    const int snapshots = std::stoi(counts[1]), peak_at = std::stoi(counts[2]);
    EXPECT_GT(snapshots, 10) << "the heap between the start and the end";
    EXPECT_EQ(std::stoi(counts[3]), snapshots - 1);
    // The peak snapshot's row: n, time, total, useful heap.
    EXPECT_TRUE(std::regex_search(
        text, std::regex("\n +" + std::to_string(peak_at) + " +[0-9,]+ +" + with_commas(peak[1]) +
                         " +" + with_commas(peak[1]) + " ")))
        << peak[1] << "\n"
        << text;
    // Its largest branch: the report's first site, with its caller beneath, as ms_print
    // gives its share of the peak (the peak moves with the length of the fixture's path).
    char share[16];
    std::snprintf(share, sizeof share, "%.2f%%", 100.0 * 100000 / std::stod(peak[1]));
    EXPECT_NE(text.find("100.00% (" + with_commas(peak[1]) +
                        "B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
                        "->" +
                        std::string(share) + " (100,000B) 0x"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(": make_peak (" + location("sites_leaks.c", "peak") + ")\n| ->" + share +
                        " (100,000B) 0x"),
              std::string::npos)
        << text;
    // The end: what is still allocated, the block allocated after the peak first.
    std::smatch leaked;
    ASSERT_TRUE(std::regex_search(report.out, leaked,
                                  std::regex("still allocated at exit: ([0-9]+) bytes")));
    EXPECT_TRUE(std::regex_search(text, std::regex("\n +" + std::to_string(snapshots - 1) +
                                                   " +[0-9,]+ +" + with_commas(leaked[1]) + " ")))
        << text;
    EXPECT_NE(text.find("(50,000B) 0x"), std::string::npos) << text;
    EXPECT_NE(text.find(": after_peak (" + location("sites_leaks.c", "after_peak") + ")"),
              std::string::npos)
        << text;
}

// One snapshot of a massif file: its number, heap, kind of tree, and the tree's lines.
struct Snapshot {
    int number = 0;
    uint64_t time = 0;
    uint64_t heap = 0;
    std::string tree;
    std::vector<std::string> lines;
};

std::vector<Snapshot> snapshots_of(const std::string& path) {
    std::ifstream file(path);
    std::vector<Snapshot> snapshots;
    std::string line;
    while (std::getline(file, line)) {
        if (line.rfind("snapshot=", 0) == 0) {
            snapshots.emplace_back();
            snapshots.back().number = std::stoi(line.substr(9));
        } else if (snapshots.empty() || line.rfind("#", 0) == 0) {
            continue;
        } else if (line.rfind("time=", 0) == 0) {
            snapshots.back().time = std::stoull(line.substr(5));
        } else if (line.rfind("mem_heap_B=", 0) == 0) {
            snapshots.back().heap = std::stoull(line.substr(11));
        } else if (line.rfind("heap_tree=", 0) == 0) {
            snapshots.back().tree = line.substr(10);
        } else if (std::regex_search(line, std::regex("^ *n[0-9]+: "))) {
            snapshots.back().lines.push_back(line);
        }
    }
    return snapshots;
}

// "n2: 6000 label" (after its indent): the bytes, the label.
std::pair<uint64_t, std::string> entry(const std::string& line) {
    std::smatch parts;
    if (!std::regex_search(line, parts, std::regex("^ *n[0-9]+: ([0-9]+) (.*)$"))) return {0, ""};
    return {std::stoull(parts[1]), parts[2]};
}

TEST(Massif, EveryTenthSnapshotBetweenIsATreeOfWhatTheSitesHeldThen) {
    // The fixture holds two 3000-byte blocks of hold_long while it allocates and frees
    // 50 others, before its peak: the trees of those points have hold_long's 6000 bytes
    // on top.
    Scratch scratch;
    std::string sites = scratch / "sites", events = scratch / "events",
                massif = scratch / "massif.out";
    Outcome run =
        run_with_sites({fixture("sites_fixture_lifetimes")}, sites, {"MEMUSAGE_EVENTS=" + events});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome made = report_of(sites, {"--events=" + events, "--massif=" + massif});
    ASSERT_TRUE(made.exited_zero()) << made.err;

    Outcome printed = collector_test::run({"/usr/bin/ms_print", massif}, {}, "");
    ASSERT_TRUE(printed.exited_zero()) << printed.err;
    std::smatch listed;
    ASSERT_TRUE(
        std::regex_search(printed.out, listed, std::regex("Detailed snapshots: \\[([^\\]]*)\\]")))
        << printed.out;
    std::set<int> detailed_numbers;
    std::string list = listed[1];
    const std::regex number("[0-9]+");
    for (std::sregex_iterator it(list.begin(), list.end(), number), end; it != end; ++it)
        detailed_numbers.insert(std::stoi(it->str()));

    std::vector<Snapshot> snapshots = snapshots_of(massif);
    ASSERT_GT(snapshots.size(), 50u) << "the fixture's events, one snapshot each";
    int between = 0, held_long_on_top = 0;
    bool after_peak = false;
    const std::string hold_long = ": hold_long (" + location("sites_lifetimes.c", "long") + ")";
    for (const Snapshot& snapshot : snapshots) {
        SCOPED_TRACE("snapshot " + std::to_string(snapshot.number));
        EXPECT_EQ(detailed_numbers.contains(snapshot.number), snapshot.tree != "empty");
        if (snapshot.tree == "empty") continue;
        // The tree's total is the snapshot's heap, as ms_print shows it.
        ASSERT_FALSE(snapshot.lines.empty());
        EXPECT_EQ(entry(snapshot.lines[0]).first, snapshot.heap);
        if (snapshot.tree == "peak") after_peak = true;
        if (snapshot.tree != "detailed" || &snapshot == &snapshots.back()) continue;
        ++between;
        // Before the peak, one snapshot per event: every 10th of them.
        if (!after_peak) {
            EXPECT_EQ(snapshot.number % 10, 0);
        }
        if (snapshot.lines.size() > 1 && entry(snapshot.lines[1]).first == 6000 &&
            entry(snapshot.lines[1]).second.find(hold_long) != std::string::npos)
            ++held_long_on_top;
    }
    EXPECT_GE(between, 5) << printed.out;
    EXPECT_GE(held_long_on_top, 5) << printed.out;
    EXPECT_NE(printed.out.find("(6,000B) 0x"), std::string::npos) << printed.out;
}

TEST(Massif, WithoutARecordingTheTimesAreNotKnownAndThatIsSaid) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome made = report_of(sites, {"--massif=" + scratch / "massif.out"});
    EXPECT_EQ(WEXITSTATUS(made.status), 1);
    EXPECT_NE(made.err.find("the massif file needs the run's event recording (--events)"),
              std::string::npos)
        << made.err;
}

// A run of a few milliseconds: massif's whole milliseconds put half its snapshots at 0 and
// ms_print drew the peak lasting to the end. In bytes allocated and freed (time_unit: B),
// every event that moves a byte moves the time, and the graph's time axis is in bytes.
TEST(Massif, AShortRunsSnapshotsAreApartInTime) {
    Scratch scratch;
    std::string sites = scratch / "sites", events = scratch / "events",
                massif = scratch / "massif.out";
    Outcome run =
        run_with_sites({fixture("sites_fixture_lifetimes")}, sites, {"MEMUSAGE_EVENTS=" + events});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome made = report_of(sites, {"--events=" + events, "--massif=" + massif});
    ASSERT_TRUE(made.exited_zero()) << made.err;
    std::vector<Snapshot> snapshots = snapshots_of(massif);
    ASSERT_GT(snapshots.size(), 50u);
    // Never back in time, and apart but for an event that moved no byte (malloc(0)) or the
    // peak, a moment of its own copied from the point that reached it.
    int at_zero = 0, together = 0;
    for (size_t i = 1; i < snapshots.size(); ++i) {
        at_zero += snapshots[i].time == 0;
        EXPECT_GE(snapshots[i].time, snapshots[i - 1].time) << "snapshot " << i;
        together += snapshots[i].time == snapshots[i - 1].time;
    }
    EXPECT_EQ(at_zero, 0);
    EXPECT_LE(together * 10, static_cast<int>(snapshots.size())) << together;
    Outcome printed = collector_test::run({"/usr/bin/ms_print", massif}, {}, "");
    ASSERT_TRUE(printed.exited_zero()) << printed.err;
    EXPECT_NE(printed.out.find("time(B)"), std::string::npos) << printed.out;
}

}  // namespace
}  // namespace sites_test
