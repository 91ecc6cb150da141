// SPDX-License-Identifier: MIT
#include "sites/stack_memo.h"

#include <string.h>

namespace memusage::stack_memo {

void remember(const unwinder_abi::StartRegisters& start, const row_walk::Trail& trail,
              uint32_t id) {
    uint32_t at = memo.next;
    memo.next = (at + 1) % kEntries;
    Entry& entry = memo.entry[at];
    memo.bucket[bucket_of(entry.ip, entry.sp)] &= ~(1u << at);
    entry.ip = start.ip;
    entry.sp = start.sp;
    entry.fp = start.fp;
    entry.generation = trail.generation;
    entry.id = id;
    entry.words = trail.words;
    entry.uses_start_fp = trail.uses_start_fp;
    memcpy(entry.place, trail.place, trail.words * sizeof trail.place[0]);
    memcpy(entry.value, trail.value, trail.words * sizeof trail.value[0]);
    memo.bucket[bucket_of(start.ip, start.sp)] |= 1u << at;
    follows(at);
}

}  // namespace memusage::stack_memo
