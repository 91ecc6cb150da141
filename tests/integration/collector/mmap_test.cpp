// SPEC section 3 (mmap tracing) and section 8 defect 4: every traced map adds to the heap,
// unmaps and remaps take away only what traced maps added, and the heap never wraps.
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
    // Reached when the block moved to 16 pages with the guard page still mapped; an unmap
    // of the untraced region that subtracted anything would make it smaller.
    EXPECT_EQ(s.heap_peak, 17 * kPage);

    // The heap after each traced event: map 16, partial unmap, grow in place, guard page,
    // (the untraced unmap changes nothing), move, shrink, unmap, unmap the guard.
    std::vector<uint64_t> expected = {16, 4, 8, 9, 17, 3, 1, 0};
    for (auto& pages : expected) pages *= kPage;
    std::vector<uint64_t> heaps = event_heaps(read_records(data));
    // The untraced munmap may or may not leave a record; it must not change the heap.
    std::vector<uint64_t> changes;
    for (uint64_t heap : heaps)
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

}  // namespace
}  // namespace collector_test
