// SPDX-License-Identifier: MIT
// The recorder keeps the site figures in merged event order: whatever the threads and
// the interleaving, the bytes every site held at the peak add up to the heap peak, and
// blocks handed between threads stay at the site that allocated them.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "heap/counting.h"
#include "platform/clock.h"
#include "record/recorder.h"
#include "sites/site_accounts.h"

namespace memusage {
namespace {

struct SitedRecorder {
    explicit SitedRecorder(uint32_t buffer_records) {
        ready = accounts.init(64) && recorder.init(nullptr, buffer_records);
        recorder.keep_site_figures(&accounts);
    }
    ~SitedRecorder() { accounts.release(); }
    void allocate(ThreadLog& log, uint32_t site, int64_t bytes) {
        recorder.record(log, bytes, 0, site_word(SiteChange::new_block, site));
    }
    void free(ThreadLog& log, uint32_t site, int64_t bytes) {
        recorder.record(log, -bytes, 0, site_word(SiteChange::freed, site));
    }
    uint64_t sum_at_peak() const {
        uint64_t sum = 0;
        for (uint32_t id = 0; id < accounts.capacity(); ++id) sum += accounts.bytes_at_peak(id);
        return sum;
    }

    SiteAccounts accounts;
    Recorder recorder;
    bool ready = false;
};

TEST(RecorderSites, OneThreadRecordingDirectlyFeedsTheFigures) {
    SitedRecorder on(32768);
    ASSERT_TRUE(on.ready);
    ThreadLog* log = on.recorder.attach_thread();
    ASSERT_TRUE(log->records_directly.load());
    on.allocate(*log, 2, 100);
    on.allocate(*log, 3, 300);  // the peak
    on.free(*log, 3, 300);
    on.allocate(*log, 2, 50);
    Stats totals = {};
    on.recorder.finish(totals, 1);
    EXPECT_EQ(totals.heap_peak, 400u);
    EXPECT_EQ(on.accounts.bytes_at_peak(2), 100u);
    EXPECT_EQ(on.accounts.bytes_at_peak(3), 300u);
    EXPECT_EQ(on.accounts.site(2).current, 150);
    EXPECT_EQ(on.accounts.site(2).blocks_allocated, 2u);
    EXPECT_EQ(on.accounts.site(3).blocks_freed, 1u);
}

// Each thread grows and shrinks its own site's bytes; the figures must describe one
// moment of the merged stream: the peak's.
TEST(RecorderSitesThreads, BytesAtThePeakAddUpToThePeak) {
    constexpr int kThreads = 4, kRounds = 300, kBlocks = 20;
    for (uint32_t buffer : {5u, 32768u}) {
        SitedRecorder on(buffer);
        ASSERT_TRUE(on.ready);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&on, t] {
                ThreadLog* log = on.recorder.attach_thread();
                uint32_t site = 2 + static_cast<uint32_t>(t);
                int64_t size = 16 * (t + 1);
                for (int round = 0; round < kRounds; ++round) {
                    int blocks = 1 + (round * (t + 3)) % kBlocks;
                    for (int i = 0; i < blocks; ++i) on.allocate(*log, site, size);
                    for (int i = 0; i < blocks; ++i) on.free(*log, site, size);
                }
                on.recorder.detach_thread(log);
            });
        for (auto& thread : threads) thread.join();
        Stats totals = {};
        on.recorder.finish(totals, cycle_counter());
        EXPECT_EQ(on.accounts.heap_peak(), totals.heap_peak);
        EXPECT_EQ(on.sum_at_peak(), totals.heap_peak) << "buffer " << buffer;
        for (int t = 0; t < kThreads; ++t) {
            const SiteFigures& site = on.accounts.site(2 + static_cast<uint32_t>(t));
            EXPECT_EQ(site.current, 0);
            EXPECT_EQ(site.blocks_allocated, site.blocks_freed);
            EXPECT_LE(on.accounts.bytes_at_peak(2 + static_cast<uint32_t>(t)),
                      uint64_t{kBlocks} * 16 * (t + 1));
        }
    }
}

TEST(RecorderSitesThreads, ABlockFreedByAnotherThreadStaysAtItsSite) {
    constexpr int kRounds = 2000;
    SitedRecorder on(3);
    ASSERT_TRUE(on.ready);
    std::atomic<int> handed{0}, taken{0};
    std::thread producer([&] {
        ThreadLog* log = on.recorder.attach_thread();
        for (int i = 1; i <= kRounds; ++i) {
            on.allocate(*log, 7, 100);
            handed.store(i, std::memory_order_release);
            while (taken.load(std::memory_order_acquire) != i) std::this_thread::yield();
        }
        on.recorder.detach_thread(log);
    });
    std::thread consumer([&] {
        ThreadLog* log = on.recorder.attach_thread();
        for (int i = 1; i <= kRounds; ++i) {
            while (handed.load(std::memory_order_acquire) != i) std::this_thread::yield();
            on.free(*log, 7, 100);
            taken.store(i, std::memory_order_release);
        }
        on.recorder.detach_thread(log);
    });
    producer.join();
    consumer.join();
    Stats totals = {};
    on.recorder.finish(totals, cycle_counter());
    const SiteFigures& site = on.accounts.site(7);
    EXPECT_EQ(site.blocks_allocated, uint64_t{kRounds});
    EXPECT_EQ(site.blocks_freed, uint64_t{kRounds});
    EXPECT_EQ(site.current, 0);
    EXPECT_EQ(on.accounts.bytes_at_peak(7), 100u);
}

// The site words reach the figures on every way events take into the stream: a signal
// handler's nested log, a log retired when its thread detaches, and timer ticks (which
// touch no site); and finish says the figures are complete.
TEST(RecorderSites, NestedLogsRetiredLogsAndTicksKeepTheSites) {
    SitedRecorder on(32768);
    ASSERT_TRUE(on.ready);
    ThreadLog* own = on.recorder.attach_thread();
    on.allocate(*own, 2, 100);
    ThreadLog* nested = on.recorder.begin_nested(*own);
    ASSERT_NE(nested, nullptr);
    on.allocate(*nested, 3, 40);  // a handler's call
    on.recorder.record_from_signal(*own, cycle_counter(), 64);
    on.free(*own, 2, 100);
    std::thread other([&] {
        ThreadLog* log = on.recorder.attach_thread();
        on.allocate(*log, 4, 7);
        on.recorder.detach_thread(log);
    });
    other.join();
    Stats totals = {};
    EXPECT_TRUE(on.recorder.finish(totals, cycle_counter()));
    EXPECT_EQ(on.accounts.site(2).blocks_freed, 1u);
    EXPECT_EQ(on.accounts.site(2).current, 0);
    EXPECT_EQ(on.accounts.site(3).blocks_allocated, 1u);
    EXPECT_EQ(on.accounts.site(3).current, 40);
    EXPECT_EQ(on.accounts.site(4).current, 7);
    EXPECT_EQ(on.accounts.site(0).blocks_allocated, 0u) << "a tick is no site's";
    EXPECT_EQ(
        on.accounts.bytes_at_peak(2) + on.accounts.bytes_at_peak(3) + on.accounts.bytes_at_peak(4),
        totals.heap_peak);
}

// The sampled short way (SampledCounting, calls while only sampled sites are on) counts as
// the short way, and its sampled blocks reach the site figures: their new block, their
// resize and their free, the free of the thread's latest one as a temporary block.
TEST(RecorderSites, TheSampledShortWayKeepsTheSampledBlocksFigures) {
    SitedRecorder on(32768);
    ASSERT_TRUE(on.ready);
    ThreadLog* log = on.recorder.attach_thread();
    const void* sampled = reinterpret_cast<const void*>(0x1000);
    const void* other = reinterpret_cast<const void*>(0x2000);
    const uint32_t tag = 5;
    auto counting = [&] { return SampledCounting(on.recorder, *log); };
    {
        SampledCounting call = counting();  // a block outside the sample
        call.allocation_requested(Call::malloc, 64);
        call.keep_site(0);
        call.allocated(64, other);
    }
    {
        // A sampled block, allocated (its tag given as a kept one: the countdown's draw would
        // unwind the stack, which needs the running collector)...
        SampledCounting call = counting();
        call.allocation_requested(Call::malloc, 300);
        call.keep_site(tag);
        call.allocated(300, sampled);
    }
    {
        SampledCounting call = counting();  // ...resized in place, still the latest...
        call.resize_requested(Call::realloc, 300, 200);
        call.keep_site(tag);
        call.reallocated(300, 200, false, sampled, sampled);
    }
    SampledCounting(on.recorder, *log).free_null();  // no heap call for the temporary blocks
    {
        SampledCounting call = counting();  // ...and freed next: temporary
        call.keep_site(tag);
        call.freed(200, sampled);
    }
    {
        SampledCounting call = counting();  // the block outside the sample, freed
        call.keep_site(0);
        call.freed(64, other);
    }
    Stats totals = {};
    ASSERT_TRUE(on.recorder.finish(totals, 1));
    EXPECT_EQ(totals.calls_of(Call::malloc), 2u);
    EXPECT_EQ(totals.calls_of(Call::free), 3u);
    EXPECT_EQ(totals.heap_peak, 364u);
    const SiteFigures& site = on.accounts.site(tag);
    EXPECT_EQ(site.bytes_allocated, 300u);
    EXPECT_EQ(site.bytes_freed, 300u);
    EXPECT_EQ(site.blocks_freed, 1u);
    EXPECT_EQ(site.temporary_blocks, 1u);
    EXPECT_EQ(site.current, 0);
    EXPECT_EQ(on.accounts.bytes_at_peak(tag), 300u);
    EXPECT_EQ(on.accounts.heap_at_end(), 0u);
}

// Any other heap call between a sampled block's allocation and its free ends its wait, a
// free of a block outside the sample included.
TEST(RecorderSites, AnotherHeapCallOnTheSampledShortWayEndsTheWait) {
    SitedRecorder on(32768);
    ASSERT_TRUE(on.ready);
    ThreadLog* log = on.recorder.attach_thread();
    const void* sampled = reinterpret_cast<const void*>(0x1000);
    const void* other = reinterpret_cast<const void*>(0x2000);
    const uint32_t tag = 6;
    auto call = [&] { return SampledCounting(on.recorder, *log); };
    SampledCounting first = call();
    first.allocation_requested(Call::malloc, 64);
    first.keep_site(0);
    first.allocated(64, other);
    SampledCounting second = call();
    second.allocation_requested(Call::malloc, 100);
    second.keep_site(tag);
    second.allocated(100, sampled);
    SampledCounting third = call();
    third.keep_site(0);
    third.freed(64, other);
    SampledCounting fourth = call();
    fourth.keep_site(tag);
    fourth.freed(100, sampled);
    Stats totals = {};
    ASSERT_TRUE(on.recorder.finish(totals, 1));
    EXPECT_EQ(on.accounts.site(tag).blocks_freed, 1u);
    EXPECT_EQ(on.accounts.site(tag).temporary_blocks, 0u);
}

// The figures see the events without a site only through the peaks they make: a peak made
// by an event of no site still finds every site as it was then, and the heap at the end is
// the stream's, whatever its last event.
TEST(RecorderSites, APeakMadeWithoutASiteHoldsTheSitesAsTheyWere) {
    SitedRecorder on(32768);
    ASSERT_TRUE(on.ready);
    ThreadLog* log = on.recorder.attach_thread();
    on.allocate(*log, 2, 100);
    on.recorder.record(*log, 1000, 0, 0);  // no site's: the peak, 1100
    on.free(*log, 2, 100);
    on.allocate(*log, 3, 50);
    on.recorder.record(*log, -1000, 0, 0);
    on.recorder.record(*log, 7, 0, 0);
    Stats totals = {};
    ASSERT_TRUE(on.recorder.finish(totals, 1));
    EXPECT_EQ(totals.heap_peak, 1100u);
    EXPECT_EQ(on.accounts.heap_peak(), 1100u);
    EXPECT_EQ(on.accounts.bytes_at_peak(2), 100u);
    EXPECT_EQ(on.accounts.bytes_at_peak(3), 0u);
    EXPECT_EQ(on.accounts.heap_at_end(), 57u);
}

// After the run is finished, threads still recording change no figure.
TEST(RecorderSites, FiguresAreFrozenOnceTheRunIsFinished) {
    SitedRecorder on(32768);
    ThreadLog* log = on.recorder.attach_thread();
    on.allocate(*log, 2, 100);
    Stats totals = {};
    on.recorder.finish(totals, 1);
    on.allocate(*log, 2, 100);
    EXPECT_EQ(on.accounts.site(2).current, 100);
    EXPECT_EQ(on.accounts.site(2).blocks_allocated, 1u);
}

}  // namespace
}  // namespace memusage
