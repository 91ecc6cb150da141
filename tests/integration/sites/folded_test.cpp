// SPDX-License-Identifier: MIT
// Folded stacks (memusagestat --folded, memusage --folded): lines of "outer;...;inner N"
// whose totals are the run's and whose leaf frames are the fixture's known sites.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

// Stack -> value; fails the test on a line that is not "stack value".
std::map<std::string, uint64_t> read_folded(const std::string& path) {
    std::map<std::string, uint64_t> stacks;
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "no " << path;
    std::string line;
    while (std::getline(in, line)) {
        size_t space = line.rfind(' ');
        EXPECT_NE(space, std::string::npos) << line;
        if (space == std::string::npos) continue;
        std::string value = line.substr(space + 1);
        EXPECT_EQ(value.find_first_not_of("0123456789"), std::string::npos) << line;
        EXPECT_TRUE(stacks.emplace(line.substr(0, space), std::stoull(value)).second)
            << "a stack twice: " << line;
    }
    return stacks;
}

uint64_t total_of(const std::map<std::string, uint64_t>& stacks) {
    uint64_t total = 0;
    for (const auto& [stack, value] : stacks) total += value;
    return total;
}

std::string leaf_of(const std::string& stack) { return stack.substr(stack.rfind(';') + 1); }

// The value of the one stack that ends in `leaf`; 0 (and a failure) when not exactly one.
uint64_t value_at_leaf(const std::map<std::string, uint64_t>& stacks, const std::string& leaf,
                       std::string* stack = nullptr) {
    uint64_t value = 0;
    int found = 0;
    for (const auto& [s, v] : stacks)
        if (leaf_of(s) == leaf) {
            ++found;
            value = v;
            if (stack) *stack = s;
        }
    EXPECT_EQ(found, 1) << "stacks ending in " << leaf;
    return value;
}

class Folded : public ::testing::Test {
  protected:
    void SetUp() override {
        Outcome run = run_with_sites({fixture("sites_fixture_c"), library("debug")}, sites_);
        ASSERT_TRUE(run.exited_zero()) << run.err;
        summary_ = collector_test::parse_summary(run.err);
    }
    std::map<std::string, uint64_t> folded(const std::string& metric) {
        std::string out = scratch_ / ("folded." + metric);
        Outcome made = report_of(sites_, {"--folded=" + out, "--folded-metric=" + metric});
        EXPECT_TRUE(made.exited_zero()) << made.err;
        EXPECT_EQ(made.out, "") << "an export prints no report";
        return read_folded(out);
    }
    Scratch scratch_;
    std::string sites_ = scratch_ / "sites";
    collector_test::Summary summary_;
};

TEST_F(Folded, LeakedBytesEndInTheFunctionsThatLeakedThem) {
    std::map<std::string, uint64_t> stacks = folded("leaked");
    std::string stack;
    EXPECT_EQ(value_at_leaf(stacks, "leak_direct", &stack), 1000u);
    EXPECT_EQ(stack, "main;leak_direct");
    EXPECT_EQ(value_at_leaf(stacks, "xmalloc", &stack), 2000u);
    EXPECT_EQ(stack, "main;leak_through_wrapper;xmalloc");
    EXPECT_EQ(value_at_leaf(stacks, "thread_leak", &stack), 3000u);
    EXPECT_EQ(stack, "thread_leak") << "a thread's stack starts at its start function";
    EXPECT_EQ(value_at_leaf(stacks, "lib_leak"), 4000u);
    // The inlined helper is a frame of its own, inside the function it was inlined into.
    EXPECT_EQ(value_at_leaf(stacks, "inlined_helper", &stack), 5000u);
    EXPECT_EQ(stack, "main;leak_inlined;inlined_helper");
    EXPECT_EQ(value_at_leaf(stacks, "after_peak"), 50000u);
    // The program's leaks: what the runtimes keep (puts' buffer, dlopen's records) is the
    // "kept" weight; the two make everything still allocated at exit.
    EXPECT_EQ(total_of(stacks), 65000u);
    EXPECT_EQ(total_of(stacks) + total_of(folded("kept")),
              summary_.heap_total - summary_.row("free").bytes);
    for (const auto& [s, v] : stacks) EXPECT_EQ(s.find("make_peak"), std::string::npos) << s;
}

TEST_F(Folded, PeakBytesAddUpToTheHeapPeak) {
    std::map<std::string, uint64_t> stacks = folded("peak");
    EXPECT_EQ(total_of(stacks), summary_.heap_peak);
    EXPECT_EQ(value_at_leaf(stacks, "make_peak"), 100000u);
    for (const auto& [s, v] : stacks) EXPECT_EQ(s.find("after_peak"), std::string::npos) << s;
    // The default metric is the peak.
    std::string out = scratch_ / "default";
    ASSERT_TRUE(report_of(sites_, {"--folded=" + out}).exited_zero());
    EXPECT_EQ(read_folded(out), stacks);
}

TEST_F(Folded, AllocatedBytesAndBlocksAreEveryCall) {
    std::map<std::string, uint64_t> bytes = folded("allocated");
    std::map<std::string, uint64_t> blocks = folded("blocks");
    EXPECT_EQ(total_of(bytes), summary_.heap_total);
    EXPECT_EQ(total_of(blocks), summary_.row("malloc").calls + summary_.row("calloc").calls);
    EXPECT_EQ(value_at_leaf(bytes, "make_peak"), 100000u);
    EXPECT_EQ(value_at_leaf(blocks, "make_peak"), 1u);
}

TEST(FoldedDriver, WrittenAfterTheRunWithTheWrapperAsLeaf) {
    Scratch scratch;
    std::string out = scratch / "run.folded";
    Outcome run =
        run_memusage({"--folded=" + out, "--folded-metric=leaked", fixture("sites_fixture_cpp")},
                     scratch.path() /* the private sites file goes here too */);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    EXPECT_EQ(run.err.find("Allocation sites:"), std::string::npos) << "no report asked for";
    std::map<std::string, uint64_t> stacks = read_folded(out);
    EXPECT_EQ(stacks["main;leak_through_new;operator new"], 600u);
    EXPECT_EQ(stacks["main;leak_through_vector;std::vector::resize"], 4000u);
}

// V8's, LLVM's and most C++ code keeps its internals in anonymous namespaces: the
// parentheses of "(anonymous namespace)" and of a lambda's "{lambda(unsigned long)#1}" are
// part of the name, not its parameters (they were cut there: "engine::").
TEST(FoldedNames, AnonymousNamespacesAndLambdasKeepTheirNames) {
    Scratch scratch;
    std::string sites = scratch / "sites";
    Outcome run = run_with_sites({fixture("sites_fixture_namespaces")}, sites);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    std::string out = scratch / "run.folded";
    Outcome made = report_of(sites, {"--folded=" + out, "--folded-metric=leaked"});
    ASSERT_TRUE(made.exited_zero()) << made.err;
    std::map<std::string, uint64_t> stacks = read_folded(out);
    EXPECT_EQ(stacks["main;engine::(anonymous namespace)::make_buffer"], 3000u);
    EXPECT_EQ(stacks["main;main::{lambda(unsigned long)#1}::operator()"], 5000u);
    // The report's via and the pictures' legends use the same short names; the report
    // itself shows the full name and the line.
    Outcome report = report_of(sites);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("at engine::(anonymous namespace)::make_buffer(unsigned long) (" +
                              location("sites_namespaces.cpp", "anonymous") + ")"),
              std::string::npos)
        << report.out;
}

TEST(FoldedDriver, BadMetricsAreRefusedBeforeTheProgramRuns) {
    Scratch scratch;
    Outcome run = run_memusage(
        {"--folded=x", "--folded-metric=bytes", fixture("sites_fixture_cpp")}, scratch.path());
    EXPECT_NE(run.status, 0);
    EXPECT_EQ(run.out, "") << "the program did not run";
    EXPECT_NE(run.err.find("invalid metric 'bytes'"), std::string::npos) << run.err;
    Outcome stat = report_of(scratch / "none", {"--folded=x", "--folded-metric=bytes"});
    EXPECT_NE(stat.status, 0);
    EXPECT_NE(stat.err.find("invalid metric 'bytes'"), std::string::npos) << stat.err;
}

}  // namespace
}  // namespace sites_test
