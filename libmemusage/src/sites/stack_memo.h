// SPDX-License-Identifier: MIT
// A thread's memo of the stacks its walks along unwind rows gave: a walk from the same
// starting registers over the same words of the stack, on the same rows, gives the same
// frames (row_walk::Trail says why), so a capture that finds its start in the memo
// re-reads the words the last walk from there used and, if every one still holds what it
// held, has the stack's id without a walk, a hash or a lookup in the shared table. Only
// reads: nothing on the stack is ever written. Exact: MEMUSAGE_SITES_VERIFY checks every
// recalled stack against libunwind's.
#pragma once

#include <cstdint>

#include "platform/site_scratch.h"
#include "platform/unwinder_abi.h"
#include "sites/row_walk.h"

namespace memusage::stack_memo {

// A remembered walk; `id` 0 for none.
struct Entry {
    uintptr_t ip, sp, fp;  // where the walk started; fp compared when the walk used it
    uint32_t generation;
    uint32_t id;
    uint32_t words;
    bool uses_start_fp;
    uint16_t place[row_walk::Trail::kMaxWords];
    uintptr_t value[row_walk::Trail::kMaxWords];
};

// Any entry may hold any start, and a new walk takes the place of the oldest: a program
// repeats a round of call paths (a loop's body, a statement's), each path's allocations at
// their own stack pointers and several paths at the same one, and all of a round's stacks
// must stay for the next round to find them. Indexed by a start's place (sets of a few
// entries), a round of 20 stacks left a fifth of them out wherever the stack happened to lie.
// The entries of a start are found by its bucket: one word, a bit for each entry whose start
// falls in it.
inline constexpr uint32_t kEntries = 32;
inline constexpr uint32_t kBucketBits = 6;
struct Memo {
    uint32_t bucket[1u << kBucketBits];
    uint32_t next;  // the oldest entry, the next to be replaced
    // The entry the thread's latest capture found or made, and after each entry the one the
    // capture after it found or made: a round of call paths comes back in the same order, so
    // the entry after the latest one is tried first, and the bucket only when it does not hold
    // (several entries may share a start, their stacks parting a few frames out, and their
    // bucket's order is not the round's). A guess only: the entry tried is verified whole.
    uint8_t latest;
    uint8_t after[kEntries];
    Entry entry[kEntries];
};
inline MEMUSAGE_SITES_SCRATCH Memo memo;
// Set while the thread reads or writes its memo: a signal handler's capture then leaves
// the memo alone (it would find or leave an entry half written).
inline __thread bool busy = false;

inline uint32_t bucket_of(uintptr_t ip, uintptr_t sp) {
    return static_cast<uint32_t>((uint64_t{sp ^ ip} * 0x9e3779b97f4a7c15ULL) >> (64 - kBucketBits));
}

// Whether every word the entry's walk used still holds what it held. In the walk's order: a
// word is read only if those before it (whence its address came) held what they held. Four
// at a time, each still compared before the next is read: fewer steps of the loop, the same
// reads.
__attribute__((always_inline)) inline bool words_hold(const Entry& entry, uintptr_t sp) {
    const uint32_t words = entry.words;
    const auto at = [&](uint32_t i) {
        return *reinterpret_cast<const uintptr_t*>(sp + entry.place[i] * sizeof(uintptr_t));
    };
    uint32_t i = 0;
    for (; i + 4 <= words; i += 4) {
        if (at(i) != entry.value[i] || at(i + 1) != entry.value[i + 1] ||
            at(i + 2) != entry.value[i + 2] || at(i + 3) != entry.value[i + 3])
            return false;
    }
    for (; i < words; ++i)
        if (at(i) != entry.value[i]) return false;
    return true;
}

// Whether the entry is a walk from `start` whose words still hold.
__attribute__((always_inline)) inline bool holds(const Entry& entry,
                                                 const unwinder_abi::StartRegisters& start,
                                                 uint32_t current) {
    if (entry.sp != start.sp || entry.ip != start.ip || entry.id == 0 ||
        (entry.uses_start_fp && entry.fp != start.fp) || entry.generation != current)
        return false;
    return words_hold(entry, start.sp);
}

// The capture that found or made entry `at` follows the latest one.
__attribute__((always_inline)) inline void follows(uint32_t at) {
    memo.after[memo.latest] = static_cast<uint8_t>(at);
    memo.latest = static_cast<uint8_t>(at);
}

// The id the walk from `start` gave when remembered, if the words it used hold what they
// held; else 0.
__attribute__((always_inline)) inline uint32_t recall(const unwinder_abi::StartRegisters& start) {
    static_assert(kEntries <= 32, "one bit an entry");
    static_assert(kEntries <= 256, "an entry's number in a byte");
    uint32_t current = row_walk::generation.load(std::memory_order_acquire);
    const uint32_t guess = memo.after[memo.latest];
    if (holds(memo.entry[guess], start, current)) {
        memo.latest = static_cast<uint8_t>(guess);
        return memo.entry[guess].id;
    }
    uint32_t found = memo.bucket[bucket_of(start.ip, start.sp)] & ~(1u << guess);
    while (found != 0) {
        const uint32_t at = __builtin_ctz(found);
        found &= found - 1;
        if (holds(memo.entry[at], start, current)) {
            follows(at);
            return memo.entry[at].id;
        }
    }
    return 0;
}

// The walk from `start` along `trail` (not row_walk::Trail::kUnkept) gave the stack `id`.
void remember(const unwinder_abi::StartRegisters& start, const row_walk::Trail& trail, uint32_t id);

}  // namespace memusage::stack_memo
