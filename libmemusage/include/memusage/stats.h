// SPDX-License-Identifier: MIT
// The counters the summary prints: one snapshot type for a thread's share and for
// the whole process, so folding threads together is a plain sum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace memusage {

// One row of the summary each. The order is the order the rows are printed in; munmap
// stays the last (kCallKinds).
enum class Call : unsigned {
    malloc,
    realloc,
    calloc,
    aligned,
    free,
    mmap_r,
    mmap_w,
    mmap_a,
    mremap,
    munmap
};
inline constexpr size_t kCallKinds = static_cast<size_t>(Call::munmap) + 1;

inline constexpr size_t kHistogramBucketBytes = 16;
inline constexpr size_t kHistogramSmallBuckets = 65536 / kHistogramBucketBytes;  // sizes 0..65535
inline constexpr size_t kHistogramLarge = kHistogramSmallBuckets;                // everything above
inline constexpr size_t kHistogramBuckets = kHistogramSmallBuckets + 1;

inline constexpr size_t histogram_bucket(uint64_t size) {
    return size < 65536 ? size / kHistogramBucketBytes : kHistogramLarge;
}

struct Stats {
    uint64_t calls[kCallKinds];
    uint64_t bytes[kCallKinds];
    uint64_t failed[kCallKinds];
    uint64_t realloc_nomove, realloc_dec, realloc_free;
    uint64_t mremap_nomove, mremap_dec;
    uint64_t histogram[kHistogramBuckets];

    // Filled in from the event stream, not per thread.
    uint64_t heap_peak, stack_peak, total_peak;

    void add_counts(const Stats& other) {
        for (size_t i = 0; i < kCallKinds; ++i) {
            calls[i] += other.calls[i];
            bytes[i] += other.bytes[i];
            failed[i] += other.failed[i];
        }
        realloc_nomove += other.realloc_nomove;
        realloc_dec += other.realloc_dec;
        realloc_free += other.realloc_free;
        mremap_nomove += other.mremap_nomove;
        mremap_dec += other.mremap_dec;
        for (size_t i = 0; i < kHistogramBuckets; ++i) histogram[i] += other.histogram[i];
    }

    // Every byte asked of the heap: the allocation rows plus the growth of resizes.
    uint64_t heap_total() const {
        uint64_t total = 0;
        for (Call c : {Call::malloc, Call::realloc, Call::calloc, Call::aligned, Call::mmap_r,
                       Call::mmap_w, Call::mmap_a, Call::mremap})
            total += bytes_of(c);
        return total;
    }
    // The histogram's denominator: every request that had a size.
    uint64_t all_calls() const {
        uint64_t total = 0;
        for (uint64_t count : histogram) total += count;
        return total;
    }

    uint64_t& calls_of(Call c) { return calls[static_cast<unsigned>(c)]; }
    uint64_t& bytes_of(Call c) { return bytes[static_cast<unsigned>(c)]; }
    uint64_t& failed_of(Call c) { return failed[static_cast<unsigned>(c)]; }
    uint64_t calls_of(Call c) const { return calls[static_cast<unsigned>(c)]; }
    uint64_t bytes_of(Call c) const { return bytes[static_cast<unsigned>(c)]; }
    uint64_t failed_of(Call c) const { return failed[static_cast<unsigned>(c)]; }
};

}  // namespace memusage
