// A thread's memo of the stacks its walks along unwind rows gave: a walk from the same
// starting registers over the same words of the stack, on the same rows, gives the same
// frames (row_walk::Trail says why), so a capture that finds its start in the memo
// re-reads the words the last walk from there used and, if every one still holds what it
// held, has the stack's id without a walk, a hash or a lookup in the shared table. Only
// reads: nothing on the stack is ever written. Exact: MEMUSAGE_SITES_VERIFY checks every
// recalled stack against libunwind's.
#pragma once

#include <cstdint>

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
    int32_t offset[row_walk::Trail::kMaxWords];
    uintptr_t value[row_walk::Trail::kMaxWords];
};

// Direct-mapped by the starting registers: a thread repeats few call paths at a time.
inline constexpr uint32_t kEntryBits = 4;
inline constexpr uint32_t kEntries = 1u << kEntryBits;
inline __thread Entry memo[kEntries];
// Set while the thread reads or writes its memo: a signal handler's capture then leaves
// the memo alone (it would find or leave an entry half written).
inline __thread bool busy = false;

inline uint32_t index_of(const unwinder_abi::StartRegisters& start) {
    return static_cast<uint32_t>(((start.sp ^ start.ip) * 0x9e3779b97f4a7c15ULL) >>
                                 (64 - kEntryBits));
}

// The id the walk from `start` gave last time, if the words it used hold what they held;
// else 0.
__attribute__((always_inline)) inline uint32_t recall(const unwinder_abi::StartRegisters& start) {
    const Entry& entry = memo[index_of(start)];
    if (entry.sp != start.sp || entry.ip != start.ip || entry.id == 0 ||
        (entry.uses_start_fp && entry.fp != start.fp) ||
        entry.generation != row_walk::generation.load(std::memory_order_acquire))
        return 0;
    for (uint32_t i = 0; i < entry.words; ++i)
        if (*reinterpret_cast<const uintptr_t*>(start.sp + static_cast<int64_t>(entry.offset[i])) !=
            entry.value[i])
            return 0;
    return entry.id;
}

// The walk from `start` along `trail` (not row_walk::Trail::kUnkept) gave the stack `id`.
void remember(const unwinder_abi::StartRegisters& start, const row_walk::Trail& trail, uint32_t id);

}  // namespace memusage::stack_memo
