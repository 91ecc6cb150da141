// SPDX-License-Identifier: MIT
#include "heap/counting.h"

#include <gtest/gtest.h>

namespace memusage {
namespace {

// A block's address: the counts do not depend on it.
const void* const kBlock = reinterpret_cast<const void*>(0x1000);

// glibc's counting rules: what each outcome of each call counts as.
class CountingTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(recorder.init(nullptr, 32768));
        log = recorder.attach_thread();
        ASSERT_NE(log, nullptr);
    }
    Counting at(uintptr_t sp = 0x7000) { return Counting(recorder, *log, sp); }
    Stats finish() {
        Stats totals = {};
        recorder.finish(totals, 1);
        return totals;
    }

    Recorder recorder;
    ThreadLog* log = nullptr;
};

TEST_F(CountingTest, MallocCountsTheRequestThenTheOutcome) {
    at().allocation_requested(Call::malloc, 100);
    at().allocated(100, kBlock);
    at().allocation_requested(Call::malloc, 1ULL << 46);
    at().failed(Call::malloc);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::malloc), 2u);
    EXPECT_EQ(s.bytes_of(Call::malloc), 100 + (1ULL << 46));
    EXPECT_EQ(s.failed_of(Call::malloc), 1u);
    EXPECT_EQ(s.heap_total(), 100 + (1ULL << 46));
    EXPECT_EQ(s.histogram[100 / 16], 1u);
    EXPECT_EQ(s.histogram[kHistogramLarge], 1u);
    EXPECT_EQ(s.all_calls(), 2u);
    EXPECT_EQ(s.heap_peak, 100u);  // the failed request never reached the heap
}

TEST_F(CountingTest, ImpossibleSizesAreFailedCallsInTheLargeBucket) {
    at().impossible_request(Call::calloc);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::calloc), 1u);
    EXPECT_EQ(s.failed_of(Call::calloc), 1u);
    EXPECT_EQ(s.bytes_of(Call::calloc), 0u);
    EXPECT_EQ(s.histogram[kHistogramLarge], 1u);
    EXPECT_EQ(s.heap_peak, 0u);
}

TEST_F(CountingTest, ReallocCountsGrowthAndTheNewSize) {
    at().allocation_requested(Call::malloc, 100);
    at().allocated(100, kBlock);
    at().resize_requested(Call::realloc, 100, 300);  // grows, moves
    at().reallocated(100, 300, true, kBlock, kBlock);
    at().resize_requested(Call::realloc, 300, 50);  // shrinks in place
    at().reallocated(300, 50, false, kBlock, kBlock);
    at().resize_requested(Call::realloc, 50, 5000);  // fails
    at().failed(Call::realloc);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::realloc), 3u);
    EXPECT_EQ(s.bytes_of(Call::realloc), 200u + 4950u);
    EXPECT_EQ(s.heap_total(), 100u + 200u + 4950u);
    EXPECT_EQ(s.failed_of(Call::realloc), 1u);
    EXPECT_EQ(s.realloc_nomove, 1u);
    EXPECT_EQ(s.realloc_dec, 1u);
    EXPECT_EQ(s.histogram[300 / 16], 1u);
    EXPECT_EQ(s.histogram[50 / 16], 1u);
    EXPECT_EQ(s.histogram[5000 / 16], 1u);
    EXPECT_EQ(s.all_calls(), 4u);
    EXPECT_EQ(s.heap_peak, 300u);
}

TEST_F(CountingTest, ReallocToZeroFreesWithoutAHistogramEntry) {
    at().allocation_requested(Call::calloc, 64);
    at().allocated(64, kBlock);
    at().realloc_call();
    at().realloc_freed(64, kBlock);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::realloc), 1u);
    EXPECT_EQ(s.realloc_free, 1u);
    EXPECT_EQ(s.bytes_of(Call::free), 64u);
    EXPECT_EQ(s.calls_of(Call::free), 0u);
    EXPECT_EQ(s.all_calls(), 1u);
}

TEST_F(CountingTest, FreeCountsCallsAndBytes) {
    at().allocation_requested(Call::malloc, 10);
    at().allocated(10, kBlock);
    at().free_null();
    at().freed(10, kBlock);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::free), 2u);
    EXPECT_EQ(s.bytes_of(Call::free), 10u);
}

TEST_F(CountingTest, MapsAddAndUnmapsTakeOnlyTracedBytes) {
    at().allocation_requested(Call::mmap_a, 8192);
    at().mapped(8192, 0);
    at().allocation_requested(Call::mmap_r, 4096);
    at().mapped(4096, 4096);  // placed over half of the first
    at().unmap_requested();
    at().unmapped(65536, 8192);
    at().resize_requested(Call::mremap, 4096, 12288);
    at().remapped(4096, 12288, true, 12288, 0);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::mmap_a), 1u);
    EXPECT_EQ(s.calls_of(Call::mmap_r), 1u);
    EXPECT_EQ(s.bytes_of(Call::munmap), 65536u);
    EXPECT_EQ(s.bytes_of(Call::mremap), 8192u);
    EXPECT_EQ(s.mremap_nomove, 0u);
    EXPECT_EQ(s.heap_peak, 12288u);
}

TEST_F(CountingTest, ReservedSpaceCountsOnlyOnceCommitted) {
    at().allocation_requested(Call::mmap_a, 1 << 20);
    at().mapped(0, 0);  // PROT_NONE: a call and its bytes in the row, nothing in the heap
    at().protection_changed(65536);
    at().protection_changed(-4096);
    at().unmap_requested();
    at().unmapped(1 << 20, 61440);
    Stats s = finish();
    EXPECT_EQ(s.calls_of(Call::mmap_a), 1u);
    EXPECT_EQ(s.bytes_of(Call::mmap_a), 1u << 20);
    EXPECT_EQ(s.heap_total(), 1u << 20);  // what was asked for, as glibc counts it
    EXPECT_EQ(s.bytes_of(Call::munmap), 1u << 20);
    EXPECT_EQ(s.all_calls(), 1u);  // mprotect has no row
    EXPECT_EQ(s.heap_peak, 65536u);
}

TEST_F(CountingTest, StackIsTheDepthBelowTheFirstStackPointerSeen) {
    at(0x10000).allocation_requested(Call::malloc, 1);
    at(0x10000).allocated(1, kBlock);
    at(0x10000 - 400).allocated(1, kBlock);
    at(0x10000 + 64).allocated(1, kBlock);  // above the first: no depth, not negative
    EXPECT_EQ(finish().stack_peak, 400u);
}

// The one compare most calls make (stack_fast_limit) must send every call whose depth
// needs more than the subtraction the measured way: off the thread's stack, at or above
// its start, past the stack-peak capture hint, beyond 32 bits.
TEST_F(CountingTest, StackFastLimitStopsWhereTheSubtractionIsNoLongerTheAnswer) {
    log->refresh_stack_fast_limit();
    EXPECT_EQ(log->stack_fast_limit, 0u);  // no start yet: the first call sets it
    log->stack_start = 0x10000;
    log->own_stack = StackRange{0x8000, 0x20000};
    log->stack_capture_above = UINT64_MAX;
    log->refresh_stack_fast_limit();
    EXPECT_EQ(log->stack_fast_limit, 0x10000u - 0x8000u + 1);  // down to the stack's end
    EXPECT_EQ(log->stack_room_above, 0x20000u - 0x10000u);     // up to its top
    log->stack_capture_above = 0x100;
    log->refresh_stack_fast_limit();
    EXPECT_EQ(log->stack_fast_limit, 0x100u + 1);  // a depth past the hint is captured
    log->own_stack = StackRange{};
    log->stack_capture_above = UINT64_MAX;
    log->stack_start = uintptr_t{1} << 40;
    log->refresh_stack_fast_limit();
    EXPECT_EQ(log->stack_fast_limit, uint64_t{UINT32_MAX} + 1);  // an event holds 32 bits
    log->own_stack = StackRange{0x8000, 0x20000};                // the start is not on the stack
    log->refresh_stack_fast_limit();
    EXPECT_EQ(log->stack_fast_limit, 0u);
    EXPECT_EQ(log->stack_room_above, 0u);
}

TEST_F(CountingTest, StackUseOffTheThreadsStackIsNotMeasuredFromItsStart) {
    log->own_stack = StackRange{0x8000, 0x20000};
    at(0x10000).allocated(1, kBlock);           // the first call: the start
    at(0x10000 - 300).allocated(1, kBlock);     // the short compare from now on
    at(0x4000).allocated(1, kBlock);            // below the stack's end: another stack
    at(0x10000 - 0x7000).allocated(1, kBlock);  // deep, still on it
    at(0x10000 + 64).allocated(1, kBlock);      // above the start
    at(0x20000 + 64).allocated(1, kBlock);      // above the stack: another one
    EXPECT_EQ(finish().stack_peak, 0x7000u);
}

// The short way (calls while only counting is on) counts exactly what the general way does.
TEST_F(CountingTest, ShortCountingCountsAsTheGeneralWay) {
    ThreadLog* general_log = log;
    Recorder short_recorder;
    ASSERT_TRUE(short_recorder.init(nullptr, 32768));
    ThreadLog* short_log = short_recorder.attach_thread();
    ASSERT_NE(short_log, nullptr);
    auto calls = [](auto counting) {
        counting.allocation_requested(Call::malloc, 100);
        counting.allocated(100, kBlock);
        counting.resize_requested(Call::realloc, 100, 40);
        counting.reallocated(100, 40, false, kBlock, kBlock);
        counting.allocation_requested(Call::calloc, 70000);
        counting.allocated(70000, kBlock);
        counting.freed(40, kBlock);
        counting.free_null();
    };
    calls(Counting(recorder, *general_log, stack_pointer()));
    calls(ShortCounting(short_recorder, *short_log));
    Stats general = finish();
    Stats short_way = {};
    short_recorder.finish(short_way, 1);
    for (Call call : {Call::malloc, Call::realloc, Call::calloc, Call::free}) {
        EXPECT_EQ(short_way.calls_of(call), general.calls_of(call));
        EXPECT_EQ(short_way.bytes_of(call), general.bytes_of(call));
    }
    EXPECT_EQ(short_way.realloc_dec, 1u);
    EXPECT_EQ(short_way.realloc_nomove, 1u);
    EXPECT_EQ(short_way.heap_peak, general.heap_peak);
    EXPECT_EQ(short_way.heap_peak, 70040u);
    EXPECT_EQ(short_way.histogram[kHistogramLarge], 1u);
    EXPECT_EQ(short_way.all_calls(), general.all_calls());
}

}  // namespace
}  // namespace memusage
