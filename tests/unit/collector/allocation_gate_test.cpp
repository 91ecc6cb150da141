// SPDX-License-Identifier: MIT
// The allocation limit and failure injection, and the parsers of their settings.
#include "heap/allocation_gate.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "memusage/quantities.h"

namespace memusage {
namespace {

TEST(Quantities, SizesTakeBinaryUnits) {
    uint64_t bytes = 0;
    EXPECT_TRUE(parse_size("0", bytes));
    EXPECT_EQ(bytes, 0u);
    EXPECT_TRUE(parse_size("1000", bytes));
    EXPECT_EQ(bytes, 1000u);
    EXPECT_TRUE(parse_size("64k", bytes));
    EXPECT_EQ(bytes, 65536u);
    EXPECT_TRUE(parse_size("64K", bytes));
    EXPECT_EQ(bytes, 65536u);
    EXPECT_TRUE(parse_size("3KiB", bytes));
    EXPECT_EQ(bytes, 3072u);
    EXPECT_TRUE(parse_size("2M", bytes));
    EXPECT_EQ(bytes, 2u << 20);
    EXPECT_TRUE(parse_size("2MiB", bytes));
    EXPECT_EQ(bytes, 2u << 20);
    EXPECT_TRUE(parse_size("5G", bytes));
    EXPECT_EQ(bytes, uint64_t{5} << 30);
    EXPECT_TRUE(parse_size("18446744073709551615", bytes));
    EXPECT_EQ(bytes, UINT64_MAX);
    for (const char* bad :
         {"", "k", "-1", "1.5M", "12q", "1 k", "1kB", "1m", "1Mi", "18446744073709551616",
          "17179869184G", static_cast<const char*>(nullptr)}) {
        bytes = 42;
        EXPECT_FALSE(parse_size(bad, bytes)) << (bad ? bad : "null");
        EXPECT_EQ(bytes, 42u) << "a rejected size leaves the value alone";
    }
}

TEST(Quantities, CountsAreWholeDecimals) {
    uint64_t n = 0;
    EXPECT_TRUE(parse_count("17", n));
    EXPECT_EQ(n, 17u);
    for (const char* bad : {"", "-1", "+1", "1e3", "0x10", "18446744073709551616"})
        EXPECT_FALSE(parse_count(bad, n)) << bad;
}

TEST(Quantities, ProbabilitiesFromZeroToOne) {
    Probability p;
    EXPECT_TRUE(parse_probability("0", p));
    EXPECT_EQ(p.threshold, 0u);
    EXPECT_FALSE(p.always);
    EXPECT_TRUE(parse_probability("1", p));
    EXPECT_TRUE(p.always);
    EXPECT_TRUE(parse_probability("1.000", p));
    EXPECT_TRUE(p.always);
    EXPECT_TRUE(parse_probability("0.5", p));
    EXPECT_EQ(p.threshold, uint64_t{1} << 63);
    EXPECT_STREQ(p.text, "0.5");
    EXPECT_TRUE(parse_probability(".25", p));
    EXPECT_EQ(p.threshold, uint64_t{1} << 62);
    for (const char* bad : {"", ".", "-0.1", "1.5", "2", "0.5x", "1e-3", "nan"})
        EXPECT_FALSE(parse_probability(bad, p)) << bad;
}

GateConfig limited_to(uint64_t bytes) {
    GateConfig config;
    config.limited = true;
    config.limit = bytes;
    return config;
}

TEST(AllocationGate, LimitRefusesWhatWouldPassItAndRemembersTheFirst) {
    AllocationGate gate;
    gate.configure(limited_to(1000));
    EXPECT_TRUE(gate.active());
    EXPECT_TRUE(gate.admit(Call::malloc, 600));
    EXPECT_TRUE(gate.admit(Call::calloc, 400));  // exactly at the limit is allowed
    EXPECT_FALSE(gate.admit(Call::realloc, 1));
    gate.release(400);
    EXPECT_TRUE(gate.admit(Call::malloc, 300));
    gate.cancel(300);  // the real allocator failed after all
    EXPECT_TRUE(gate.admit(Call::malloc, 400));
    EXPECT_FALSE(gate.admit(Call::aligned, 1));
    GateReport report = gate.report();
    EXPECT_EQ(report.refused, 2u);
    EXPECT_EQ(report.first_refused_call, Call::realloc);
    EXPECT_EQ(report.first_refused_size, 1u);
    EXPECT_EQ(report.first_refused_heap, 1000u);
}

TEST(AllocationGate, ReleasingMoreThanWasAdmittedStopsAtZero) {
    AllocationGate gate;
    gate.configure(limited_to(100));
    gate.release(1 << 20);  // a block from before counting began
    EXPECT_TRUE(gate.admit(Call::malloc, 100));
    EXPECT_FALSE(gate.admit(Call::malloc, 1));
}

TEST(AllocationGate, OffAdmitsEverything) {
    AllocationGate gate;
    gate.configure(GateConfig{});
    EXPECT_FALSE(gate.active());
    for (int i = 0; i < 100; ++i) EXPECT_TRUE(gate.admit(Call::malloc, UINT64_MAX));
}

std::vector<uint64_t> failing_calls(const GateConfig& config, uint64_t calls) {
    AllocationGate gate;
    gate.configure(config);
    std::vector<uint64_t> failed;
    for (uint64_t n = 1; n <= calls; ++n)
        if (!gate.admit(Call::malloc, 16)) failed.push_back(n);
    return failed;
}

TEST(AllocationGate, FailsTheNthCall) {
    GateConfig config;
    config.injection = Injection::nth_call;
    config.nth = 7;
    EXPECT_EQ(failing_calls(config, 20), std::vector<uint64_t>{7});
}

TEST(AllocationGate, FailsEveryCallFromTheNth) {
    GateConfig config;
    config.injection = Injection::from_nth_call;
    config.nth = 18;
    EXPECT_EQ(failing_calls(config, 20), (std::vector<uint64_t>{18, 19, 20}));
}

TEST(AllocationGate, RandomFailuresFollowTheSeedAndTheProbability) {
    GateConfig config;
    config.injection = Injection::random;
    ASSERT_TRUE(parse_probability("0.1", config.probability));
    config.seed = 42;
    std::vector<uint64_t> first = failing_calls(config, 100000);
    EXPECT_EQ(failing_calls(config, 100000), first) << "the same seed fails the same calls";
    // 10% of 100,000 calls: well within 5 standard deviations (95).
    EXPECT_NEAR(static_cast<double>(first.size()), 10000.0, 500.0);
    config.seed = 43;
    EXPECT_NE(failing_calls(config, 100000), first);
    ASSERT_TRUE(parse_probability("0", config.probability));
    EXPECT_TRUE(failing_calls(config, 1000).empty());
    ASSERT_TRUE(parse_probability("1", config.probability));
    EXPECT_EQ(failing_calls(config, 1000).size(), 1000u);
}

TEST(AllocationGate, ReportListsTheFirstInjectedCalls) {
    GateConfig config;
    config.injection = Injection::from_nth_call;
    config.nth = 3;
    AllocationGate gate;
    gate.configure(config);
    for (int i = 0; i < 20; ++i) gate.admit(i % 2 == 0 ? Call::malloc : Call::calloc, 8);
    GateReport report = gate.report();
    EXPECT_EQ(report.injected, 18u);
    EXPECT_EQ(report.listed[0].number, 3u);
    EXPECT_EQ(report.listed[0].call, Call::malloc);
    EXPECT_EQ(report.listed[1].number, 4u);
    EXPECT_EQ(report.listed[1].call, Call::calloc);
    EXPECT_EQ(report.listed[GateReport::kListed - 1].number, 12u);
}

// Threads racing for the last bytes under the limit never take the heap past it.
TEST(AllocationGate, LimitHoldsUnderThreads) {
    AllocationGate gate;
    gate.configure(limited_to(64 * 100));
    std::vector<std::thread> threads;
    std::atomic<int> admitted{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i)
                if (gate.admit(Call::malloc, 64)) admitted.fetch_add(1);
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(admitted.load(), 100);
    EXPECT_EQ(gate.report().refused, 4000u - 100u);
}

}  // namespace
}  // namespace memusage
