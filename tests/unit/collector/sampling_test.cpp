// SPDX-License-Identifier: MIT
// Sampled sites' arithmetic: each weight code stands for one exact weight, a sampled block
// is kept with the probability that makes 1/weight its probability of being sampled, and
// the site accounts add and take away the same weighted amounts.
#include "sites/sampling.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sites/site_accounts.h"

namespace memusage {
namespace {

using sampling::choose;
using sampling::weight_of_code;

TEST(Sampling, AKeptSampleHasProbabilityOneOverItsWeight) {
    const uint64_t interval = 524288;
    for (uint64_t size : {1ull, 8ull, 100ull, 4096ull, 100000ull, 524287ull}) {
        double p = -std::expm1(-static_cast<double>(size) / interval);
        sampling::Choice choice = choose(size, interval);
        ASSERT_GE(choice.code, 1u) << size;
        ASSERT_LE(choice.code, sampling::kMaxCode) << size;
        EXPECT_LE(choice.keep, 1.0) << size;
        EXPECT_GE(choice.keep, 1.0 / std::exp2(1.0 / sampling::kCodesPerDoubling)) << size;
        EXPECT_NEAR(p * choice.keep, 1.0 / weight_of_code(choice.code), 1e-12) << size;
    }
}

// From the interval on, a block is always sampled and counts as itself: between about 3 and
// 24 intervals, the smallest code above 1/p was kept 98% of the time with weight 1.02.
TEST(Sampling, ABlockOfAtLeastTheIntervalIsAlwaysKeptAsItself) {
    const uint64_t interval = 524288;
    for (uint64_t size : {interval, 3 * interval, 8 * interval, 24 * interval}) {
        sampling::Choice choice = choose(size, interval);
        EXPECT_EQ(choice.code, sampling::kUnitCode) << size;
        EXPECT_EQ(weight_of_code(choice.code), 1.0) << size;
        EXPECT_EQ(choice.keep, 1.0) << size;
        EXPECT_EQ(sampling::inclusion(size, interval), 1.0) << size;
    }
    // Below it, the chance of being in the sample grows with the size.
    EXPECT_LT(sampling::inclusion(1000, interval), sampling::inclusion(2000, interval));
}

TEST(Sampling, ABlockFarLargerThanTheIntervalHasWeightOne) {
    sampling::Choice choice = choose(64 * 65536, 65536);
    EXPECT_EQ(choice.code, 1u);
    EXPECT_EQ(weight_of_code(choice.code), 1.0);
    EXPECT_EQ(choice.keep, 1.0);
}

TEST(Sampling, CountdownsAreExponentialWithTheIntervalAsMean) {
    sampling::Generator generator{sampling::seed_for(42, 0)};
    const int draws = 200000;
    double sum = 0;
    for (int i = 0; i < draws; ++i)
        sum += static_cast<double>(sampling::next_countdown(generator, 1000));
    // The mean's standard error is 1000 / sqrt(draws), about 2.2.
    EXPECT_NEAR(sum / draws, 1000.0, 12.0);
}

TEST(Sampling, SeedsDifferByStreamAndAreNeverZero) {
    EXPECT_NE(sampling::seed_for(1, 0), sampling::seed_for(1, 1));
    EXPECT_EQ(sampling::seed_for(7, 3), sampling::seed_for(7, 3));
    for (uint64_t stream = 0; stream < 1000; ++stream) EXPECT_NE(sampling::seed_for(0, stream), 0u);
}

struct WeightedAccounts : SiteAccounts {
    WeightedAccounts() { ready = init(16, 65536); }
    ~WeightedAccounts() { release(); }
    void event(SiteChange change, uint32_t tag, int64_t bytes) {
        heap += bytes;
        on_event(site_word(change, tag), bytes, heap > 0 ? static_cast<uint64_t>(heap) : 0);
    }
    int64_t heap = 0;
    bool ready = false;
};

TEST(Sampling, TheAccountsWeighEveryEventOfABlockByItsAllocationsWeight) {
    WeightedAccounts accounts;
    ASSERT_TRUE(accounts.ready);
    uint32_t code = 1 + 3 * sampling::kCodesPerDoubling;  // weight 8
    uint32_t tag = site_tag(5, code);
    ASSERT_EQ(stack_id_of(tag), 5u);
    ASSERT_EQ(weight_code_of(site_word(SiteChange::freed, tag)), code);
    accounts.event(SiteChange::new_block, tag, 100);  // the peak
    accounts.event(SiteChange::resize, tag, -40);
    const SiteFigures& site = accounts.site(5);
    EXPECT_EQ(accounts.in_units(site.blocks_allocated), 8u);
    EXPECT_EQ(accounts.in_units(site.bytes_allocated), 800u);
    EXPECT_EQ(accounts.in_units(site.bytes_freed), 320u);
    EXPECT_EQ(accounts.in_units(accounts.bytes_at_peak(5)), 800u);
    accounts.event(SiteChange::freed, tag, -60);
    EXPECT_EQ(accounts.in_units(site.blocks_freed), 8u);
    EXPECT_EQ(accounts.in_units(site.bytes_freed), 800u);
    EXPECT_EQ(site.current, 0) << "the free took away what the block added";
    // A weight of 1 (a block far larger than the interval) counts as itself.
    accounts.event(SiteChange::new_block, site_tag(6, 1), 1000000);
    EXPECT_EQ(accounts.in_units(accounts.site(6).bytes_allocated), 1000000u);
    EXPECT_EQ(accounts.in_units(accounts.site(6).blocks_allocated), 1u);
    EXPECT_EQ(accounts.sample_interval(), 65536u);
}

TEST(Sampling, ExactAccountsAreInBytesAndBlocks) {
    SiteAccounts accounts;
    ASSERT_TRUE(accounts.init(16));
    accounts.on_event(site_word(SiteChange::new_block, 3), 123, 123);
    EXPECT_EQ(accounts.site(3).bytes_allocated, 123u);
    EXPECT_EQ(accounts.site(3).blocks_allocated, 1u);
    EXPECT_EQ(accounts.in_units(123), 123u);
    EXPECT_EQ(accounts.sample_interval(), 0u);
    accounts.release();
}

}  // namespace
}  // namespace memusage
