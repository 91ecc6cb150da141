// SPDX-License-Identifier: MIT
#include "heap/counting_extras.h"

#include "heap/allocation_gate.h"
#include "heap/heap_observer.h"
#include "record/recorder.h"
#include "record/thread_log.h"
#include "sites/sites.h"

namespace memusage::counting_extras {

__attribute__((noinline)) bool admit(Call call, uint64_t bytes) {
    if (!allocation_gate.active() || allocation_gate.admit(call, bytes)) return true;
    // Unwound here, the refused call's stack is the program's call, as a site's is.
    if (__builtin_expect(sites::enabled, 0)) sites::note_refused_call();
    return false;
}

__attribute__((noinline)) void release(uint64_t bytes) {
    if (allocation_gate.active()) allocation_gate.release(bytes);
}

__attribute__((noinline)) void record(Recorder& recorder, ThreadLog& log, int64_t heap_change,
                                      uint64_t stack, uint32_t site, const BlockChange* block) {
    log.net_heap += heap_change;
    log.note_stack(stack);
    if (block != nullptr)
        recorder.record_with_block(log, heap_change, stack, site, *block);
    else
        recorder.record(log, heap_change, stack, site);
    if (heap_observer.armed()) heap_observer.notify(recorder.current_heap(&log));
}

}  // namespace memusage::counting_extras
