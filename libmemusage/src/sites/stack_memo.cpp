#include "sites/stack_memo.h"

#include <string.h>

namespace memusage::stack_memo {

void remember(const unwinder_abi::StartRegisters& start, const row_walk::Trail& trail,
              uint32_t id) {
    Entry& entry = memo[index_of(start)];
    entry.ip = start.ip;
    entry.sp = start.sp;
    entry.fp = start.fp;
    entry.generation = trail.generation;
    entry.id = id;
    entry.words = trail.words;
    entry.uses_start_fp = trail.uses_start_fp;
    memcpy(entry.offset, trail.offset, trail.words * sizeof trail.offset[0]);
    memcpy(entry.value, trail.value, trail.words * sizeof trail.value[0]);
}

}  // namespace memusage::stack_memo
