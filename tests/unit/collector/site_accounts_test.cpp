// SPDX-License-Identifier: MIT
#include "sites/site_accounts.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace memusage {
namespace {

struct Accounts : SiteAccounts {
    explicit Accounts(uint32_t sites) { ready_ = init(sites); }
    ~Accounts() { release(); }
    // One event, with the heap kept here as the stream keeps it.
    void event(SiteChange change, uint32_t site, int64_t bytes) {
        heap_ += bytes;
        on_event(site_word(change, site), bytes, heap_ > 0 ? static_cast<uint64_t>(heap_) : 0);
    }
    int64_t heap_ = 0;
    bool ready_ = false;
};

TEST(SiteAccounts, BytesAtThePeakAreThoseOfThePeaksMoment) {
    Accounts accounts(8);
    ASSERT_TRUE(accounts.ready_);
    accounts.event(SiteChange::new_block, 2, 100);
    accounts.event(SiteChange::new_block, 3, 50);  // the peak: 150
    accounts.event(SiteChange::freed, 2, -100);
    accounts.event(SiteChange::new_block, 3, 60);
    accounts.event(SiteChange::new_block, 4, 30);  // 140: not a peak
    EXPECT_EQ(accounts.heap_peak(), 150u);
    EXPECT_EQ(accounts.bytes_at_peak(2), 100u);
    EXPECT_EQ(accounts.bytes_at_peak(3), 50u);
    EXPECT_EQ(accounts.bytes_at_peak(4), 0u);
    EXPECT_EQ(accounts.site(3).current, 110);
    EXPECT_EQ(accounts.site(2).blocks_allocated, 1u);
    EXPECT_EQ(accounts.site(2).blocks_freed, 1u);
    EXPECT_EQ(accounts.site(3).blocks_allocated, 2u);
    EXPECT_EQ(accounts.site(3).bytes_allocated, 110u);
}

TEST(SiteAccounts, BlocksAtThePeakAreCountedAsItsBytesAre) {
    Accounts accounts(8);
    accounts.event(SiteChange::new_block, 2, 10);
    accounts.event(SiteChange::new_block, 2, 10);
    accounts.event(SiteChange::new_block, 3, 100);  // the peak: 120, site 2 holds 2 blocks
    accounts.event(SiteChange::freed, 2, -10);
    accounts.event(SiteChange::resize, 3, 5);  // a resize: bytes, no block
    EXPECT_EQ(accounts.blocks_at_peak(2), 2u);
    EXPECT_EQ(accounts.blocks_at_peak(3), 1u);
    EXPECT_EQ(accounts.site(2).current_blocks, 1);
    EXPECT_EQ(accounts.blocks_at_peak(4), 0u);
}

TEST(SiteAccounts, TemporaryFreesAreFreesCountedApartToo) {
    Accounts accounts(8);
    accounts.event(SiteChange::new_block, 2, 300);
    accounts.event(SiteChange::freed_temporary, 2, -300);
    accounts.event(SiteChange::new_block, 2, 200);
    accounts.event(SiteChange::freed, 2, -200);
    const SiteFigures& site = accounts.site(2);
    EXPECT_EQ(site.blocks_freed, 2u);
    EXPECT_EQ(site.bytes_freed, 500u);
    EXPECT_EQ(site.temporary_blocks, 1u);
    EXPECT_EQ(site.temporary_bytes, 300u);
    EXPECT_EQ(site.current_blocks, 0);
    // The word of a temporary free is never 0, the word of no site.
    EXPECT_NE(site_word(SiteChange::freed_temporary, 2), 0u);
}

TEST(SiteAccounts, TheFirstMomentAtTheLargestHeapIsThePeak) {
    Accounts accounts(8);
    accounts.event(SiteChange::new_block, 2, 100);  // 100: the peak
    accounts.event(SiteChange::freed, 2, -100);
    accounts.event(SiteChange::new_block, 3, 100);  // 100 again: not a new peak
    EXPECT_EQ(accounts.bytes_at_peak(2), 100u);
    EXPECT_EQ(accounts.bytes_at_peak(3), 0u);
}

TEST(SiteAccounts, ResizesMoveBytesButNoBlocks) {
    Accounts accounts(8);
    accounts.event(SiteChange::new_block, 2, 100);
    accounts.event(SiteChange::resize, 2, 400);  // 500: the peak
    accounts.event(SiteChange::resize, 2, -300);
    const SiteFigures& site = accounts.site(2);
    EXPECT_EQ(site.blocks_allocated, 1u);
    EXPECT_EQ(site.blocks_freed, 0u);
    EXPECT_EQ(site.bytes_allocated, 500u);
    EXPECT_EQ(site.bytes_freed, 300u);
    EXPECT_EQ(site.current, 200);
    EXPECT_EQ(accounts.bytes_at_peak(2), 500u);
}

TEST(SiteAccounts, EventsWithoutASiteMoveOnlyTheHeap) {
    Accounts accounts(8);
    accounts.event(SiteChange::new_block, 2, 10);
    accounts.heap_ += 1000;  // a traced map: site word 0
    accounts.on_event(0, 1000, 1010);
    accounts.event(SiteChange::new_block, 2, 10);
    EXPECT_EQ(accounts.heap_peak(), 1020u);
    EXPECT_EQ(accounts.bytes_at_peak(2), 20u);
    EXPECT_EQ(accounts.site(0).blocks_allocated, 0u);
}

// Against a replay that copies every site's bytes whenever the heap reaches a new peak.
TEST(SiteAccounts, AgreesWithABruteForceReplay) {
    constexpr uint32_t kSites = 12;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 random(seed);
        Accounts accounts(kSites + 2);
        std::vector<std::vector<int64_t>> live(kSites + 2);  // block sizes per site
        std::vector<int64_t> held(kSites + 2, 0), held_at_peak(kSites + 2, 0);
        int64_t heap = 0, peak = 0;
        for (int i = 0; i < 3000; ++i) {
            uint32_t site = 2 + random() % kSites;
            auto& blocks = live[site];
            int64_t change;
            if (blocks.empty() || random() % 3 != 0) {
                change = 1 + random() % 1000;
                blocks.push_back(change);
                accounts.event(SiteChange::new_block, site, change);
            } else if (random() % 2 == 0) {
                size_t which = random() % blocks.size();
                change = -blocks[which];
                blocks.erase(blocks.begin() + static_cast<long>(which));
                accounts.event(SiteChange::freed, site, change);
            } else {
                size_t which = random() % blocks.size();
                int64_t size = 1 + random() % 1000;
                change = size - blocks[which];
                blocks[which] = size;
                accounts.event(SiteChange::resize, site, change);
            }
            held[site] += change;
            heap += change;
            if (heap > peak) {
                peak = heap;
                held_at_peak = held;
            }
        }
        ASSERT_EQ(accounts.heap_peak(), static_cast<uint64_t>(peak)) << "seed " << seed;
        for (uint32_t site = 2; site < kSites + 2; ++site) {
            ASSERT_EQ(accounts.bytes_at_peak(site), static_cast<uint64_t>(held_at_peak[site]))
                << "seed " << seed << " site " << site;
            ASSERT_EQ(accounts.site(site).current, held[site]);
        }
    }
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

// Where blocks grew (kRegrown): the pairs of a site and a growing stack hold what their
// blocks hold, at the peak and now, and leave the sites' own figures and the heap alone.
struct GrowingAccounts : Accounts {
    using Accounts::Accounts;
    // A kRegrown event of a block of `site`, grown at `grown_at`.
    bool regrown(uint32_t site, uint32_t grown_at, bool leaving, uint64_t bytes) {
        return on_event(site_word(SiteChange::resize, site), regrown_change(leaving, bytes),
                        heap_ > 0 ? static_cast<uint64_t>(heap_) : 0, grown_at);
    }
    const GrownFigures* pair(uint32_t site, uint32_t grown_at) const {
        for (uint32_t i = 0; i < kGrownPairs; ++i)
            if (grown_pairs()[i].site == site && grown_pairs()[i].grown_at == grown_at)
                return &grown_pairs()[i];
        return nullptr;
    }
};

TEST(SiteAccounts, GrownBlocksAreCountedByWhereTheyGrew) {
    GrowingAccounts accounts(8);
    ASSERT_TRUE(accounts.ready_);
    accounts.event(SiteChange::new_block, 2, 100);
    // realloc at stack 5 grows it to 1000: the pair's event, then the resize's.
    EXPECT_TRUE(accounts.regrown(2, 5, false, 1000));
    accounts.event(SiteChange::resize, 2, 900);  // the peak: 1000
    accounts.event(SiteChange::new_block, 3, 10);
    accounts.event(SiteChange::freed, 3, -10);
    // Grown again at stack 6, to 2000, then freed: it leaves each pair as it goes.
    EXPECT_TRUE(accounts.regrown(2, 5, true, 1000));
    EXPECT_TRUE(accounts.regrown(2, 6, false, 2000));
    accounts.event(SiteChange::resize, 2, 1000);   // 2000
    accounts.event(SiteChange::new_block, 2, 50);  // the peak: 2050
    EXPECT_TRUE(accounts.regrown(2, 6, true, 2000));
    accounts.event(SiteChange::freed, 2, -2000);
    // A second block grown at 5 and kept to the end.
    EXPECT_TRUE(accounts.regrown(2, 5, false, 70));
    accounts.event(SiteChange::resize, 2, 20);

    EXPECT_EQ(accounts.heap_peak(), 2050u);
    const GrownFigures* at_5 = accounts.pair(2, 5);
    const GrownFigures* at_6 = accounts.pair(2, 6);
    ASSERT_NE(at_5, nullptr);
    ASSERT_NE(at_6, nullptr);
    EXPECT_EQ(accounts.bytes_at_peak(*at_5), 0u);
    EXPECT_EQ(accounts.bytes_at_peak(*at_6), 2000u);
    EXPECT_EQ(accounts.blocks_at_peak(*at_6), 1u);
    EXPECT_EQ(at_5->current, 70);
    EXPECT_EQ(at_5->current_blocks, 1);
    EXPECT_EQ(at_6->current, 0);
    // The site's own figures are the resizes' and the blocks', as without the pairs.
    EXPECT_EQ(accounts.site(2).current, 70);
    EXPECT_EQ(accounts.site(2).blocks_allocated, 2u);
    EXPECT_EQ(accounts.site(2).bytes_allocated, 100u + 900 + 1000 + 50 + 20);
    EXPECT_EQ(accounts.site(5).growths, 2u);
    EXPECT_EQ(accounts.site(6).growths, 1u);
    EXPECT_EQ(accounts.site(5).blocks_allocated, 0u);
    EXPECT_FALSE(accounts.grown_pairs_full());
}

// The table is reserved once: when it is full, a new pair is dropped (and said), never
// made room for, and the pairs it has keep counting.
TEST(SiteAccounts, AFullTableOfGrownPairsDropsNewOnes) {
    GrowingAccounts accounts(SiteAccounts::kGrownPairs + 8);
    ASSERT_TRUE(accounts.ready_);
    for (uint32_t i = 0; i < SiteAccounts::kGrownPairs; ++i) accounts.regrown(2, 3 + i, false, 10);
    EXPECT_FALSE(accounts.grown_pairs_full());
    accounts.regrown(3, 4, false, 10);
    EXPECT_TRUE(accounts.grown_pairs_full());
    EXPECT_EQ(accounts.pair(3, 4), nullptr);
    accounts.regrown(2, 3, false, 10);
    EXPECT_EQ(accounts.pair(2, 3)->current, 20);
    // A stack id beyond the table of sites is no pair.
    accounts.regrown(2, SiteAccounts::kGrownPairs + 9, false, 10);
    EXPECT_EQ(accounts.pair(2, SiteAccounts::kGrownPairs + 9), nullptr);
}

}  // namespace
}  // namespace memusage
