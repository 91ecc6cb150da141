// SPDX-License-Identifier: MIT
// mmap tracing (-m), without glibc's heap going below zero on anonymous unmaps: every
// traced map adds its accessible bytes to the heap, mprotect commits and decommits, unmaps
// and remaps take away only what traced maps added, and the heap never wraps.
#include <gtest/gtest.h>

#include "collector_run.h"

namespace collector_test {
namespace {

constexpr uint64_t kPage = 4096;
const std::vector<std::string> kTraceMmap = {"MEMUSAGE_TRACE_MMAP=1", "MEMUSAGE_COLOR=never"};

TEST(MmapTracing, MapKindsHaveTheirRowsAndTheHeapReturnsToZero) {
    Scratch scratch;
    Outcome outcome =
        run({fixture("collector_fixture_mmaps"), "kinds", scratch / "mapped"}, kTraceMmap);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("mmap(a)").calls, 1u);
    EXPECT_EQ(s.row("mmap(a)").bytes, 256 * kPage);
    EXPECT_EQ(s.row("mmap(w)").calls, 1u);
    EXPECT_EQ(s.row("mmap(w)").bytes, 2 * kPage);
    EXPECT_EQ(s.row("mmap(r)").calls, 1u);
    EXPECT_EQ(s.row("mmap(r)").bytes, kPage);
    EXPECT_EQ(s.row("munmap").calls, 3u);
    EXPECT_EQ(s.row("munmap").bytes, 259 * kPage);
    EXPECT_EQ(s.heap_peak, 259 * kPage) << "glibc's underflow shows as 18446744073708503040";
}

TEST(MmapTracing, RemapsAndPartialUnmapsKeepTheHeapExact) {
    Scratch scratch;
    std::string data = scratch / "profile";
    std::vector<std::string> env = kTraceMmap;
    env.push_back("MEMUSAGE_OUTPUT=" + data);
    env.push_back("MEMUSAGE_NO_TIMER=1");
    Outcome outcome = run({fixture("collector_fixture_mmaps"), "remaps"}, env);
    ASSERT_TRUE(outcome.exited_zero()) << "fixture step " << outcome.status / 256 << "\n"
                                       << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("mmap(a)").calls, 2u);  // the 16-page block and the guard page
    EXPECT_EQ(s.row("mmap(a)").bytes, 17 * kPage);
    EXPECT_EQ(s.row("mremap").calls, 3u);
    EXPECT_EQ(s.row("mremap").bytes, 12 * kPage);  // the two growths, as glibc counts them
    EXPECT_EQ(s.heap_total, 29 * kPage);           // every map plus every growth
    EXPECT_EQ(s.mremap_nomove, 2);                 // the in-place growth and the shrink
    EXPECT_EQ(s.mremap_dec, 1);
    EXPECT_EQ(s.row("munmap").calls, 4u);
    EXPECT_EQ(s.heap_peak, 16 * kPage);

    // The heap after each traced event: map 16, partial unmap, grow in place, (the guard
    // page is PROT_NONE: nothing; the untraced unmap changes nothing), move, shrink, unmap,
    // (unmap the guard: nothing).
    std::vector<uint64_t> expected = {16, 4, 8, 16, 2, 0};
    for (auto& pages : expected) pages *= kPage;
    std::vector<uint64_t> heaps = event_heaps(read_records(data));
    // The untraced munmap may or may not leave a record; it must not change the heap.
    std::vector<uint64_t> changes;
    for (uint64_t heap : heaps)
        if (changes.empty() || changes.back() != heap) changes.push_back(heap);
    EXPECT_EQ(changes, expected);
}

// MREMAP_DONTUNMAP moves the pages and keeps the old mapping, empty but accessible: the
// heap holds both until each is unmapped.
TEST(MmapTracing, RemapWithoutUnmapKeepsTheOldMapping) {
    Scratch scratch;
    std::string data = scratch / "profile";
    std::vector<std::string> env = kTraceMmap;
    env.push_back("MEMUSAGE_OUTPUT=" + data);
    env.push_back("MEMUSAGE_NO_TIMER=1");
    Outcome outcome = run({fixture("collector_fixture_mmaps"), "dontunmap"}, env);
    ASSERT_NE(outcome.status / 256, 10) << "this kernel has no MREMAP_DONTUNMAP";
    ASSERT_TRUE(outcome.exited_zero()) << "fixture step " << outcome.status / 256 << "\n"
                                       << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("mremap").calls, 1u);
    EXPECT_EQ(s.row("munmap").calls, 2u);
    EXPECT_EQ(s.heap_peak, 8 * kPage);
    // The new mapping is new memory: what was mapped in all is what was unmapped.
    EXPECT_EQ(s.row("mremap").bytes, 4 * kPage);
    EXPECT_EQ(s.heap_total, 8 * kPage);
    EXPECT_EQ(s.row("munmap").bytes, s.heap_total);
    std::vector<uint64_t> changes;
    for (uint64_t heap : event_heaps(read_records(data)))
        if (changes.empty() || changes.back() != heap) changes.push_back(heap);
    EXPECT_EQ(changes, (std::vector<uint64_t>{4 * kPage, 8 * kPage, 4 * kPage, 0}));
}

// Reserve with PROT_NONE, commit with mprotect: the heap is what the program can use (the
// JVM reserves gigabytes it never commits). The rows still count what was asked for.
TEST(MmapTracing, ReservedSpaceCountsOnlyWhileCommitted) {
    Scratch scratch;
    std::string data = scratch / "profile";
    std::vector<std::string> env = kTraceMmap;
    env.push_back("MEMUSAGE_OUTPUT=" + data);
    env.push_back("MEMUSAGE_NO_TIMER=1");
    Outcome outcome = run({fixture("collector_fixture_mmaps"), "reserve"}, env);
    ASSERT_TRUE(outcome.exited_zero()) << "fixture step " << outcome.status / 256 << "\n"
                                       << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("mmap(a)").calls, 3u);
    EXPECT_EQ(s.row("mmap(a)").bytes, 1036 * kPage);
    EXPECT_EQ(s.row("mremap").calls, 1u);
    EXPECT_EQ(s.row("mremap").bytes, 4 * kPage);
    EXPECT_EQ(s.row("munmap").calls, 5u);
    EXPECT_EQ(s.row("munmap").bytes, 1044 * kPage);
    EXPECT_EQ(s.heap_total, 1040 * kPage);
    EXPECT_EQ(s.heap_peak, 32 * kPage);

    // Reserve, commit 16 and 16 more, (make 4 read-only: still counted), decommit 16,
    // (unmap reserved space; commit untraced memory), map 8, decommit them, (unmap them;
    // reserve 4, move them growing to 8), commit the 8, unmap them, unmap the rest.
    std::vector<uint64_t> expected = {0, 16, 32, 16, 24, 16, 24, 16, 0};
    for (auto& pages : expected) pages *= kPage;
    std::vector<uint64_t> changes;
    for (uint64_t heap : event_heaps(read_records(data)))
        if (changes.empty() || changes.back() != heap) changes.push_back(heap);
    EXPECT_EQ(changes, expected);
}

TEST(MmapTracing, RefusedMapCountsAsFailed) {
    Outcome outcome = run({fixture("collector_fixture_mmaps"), "refused"}, kTraceMmap);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_EQ(s.row("mmap(a)").calls, 1u);
    EXPECT_EQ(s.row("mmap(a)").failed, 1u);
    EXPECT_EQ(s.heap_peak, 0u);
}

TEST(MmapTracing, WithoutTheVariableMapsAreNotCounted) {
    Scratch scratch;
    Outcome outcome = run({fixture("collector_fixture_mmaps"), "kinds", scratch / "mapped"},
                          {"MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Summary s = parse_summary(outcome.err);
    EXPECT_FALSE(s.has_row("mmap(a)"));
    EXPECT_EQ(s.heap_peak, 0u);
}

// The collector's own maps (the live figures' file, made at the first call of a C++ program
// whose runtime allocates before the collector's constructor) are not the program's: a
// program that maps nothing shows no map, as under glibc's collector.
TEST(MmapTracing, TheCollectorsOwnMapsAreNotCounted) {
    Outcome outcome = run({fixture("collector_fixture_aligned_new")}, kTraceMmap);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Summary s = parse_summary(outcome.err);
    for (const char* row : {"mmap(r)", "mmap(w)", "mmap(a)", "munmap"})
        EXPECT_EQ(s.row(row).calls, 0u) << row;
    EXPECT_GT(s.row("malloc").calls, 0u);
}

}  // namespace
}  // namespace collector_test
