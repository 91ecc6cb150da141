#include "counting_extras.h"

#include "allocation_gate.h"
#include "heap_observer.h"
#include "recorder.h"
#include "sites.h"
#include "thread_log.h"

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
                                      uint64_t stack, uint32_t site) {
    log.net_heap += heap_change;
    log.note_stack(stack);
    recorder.record(log, heap_change, stack, site);
    if (heap_observer.armed()) heap_observer.notify(recorder.current_heap(&log));
}

}  // namespace memusage::counting_extras
