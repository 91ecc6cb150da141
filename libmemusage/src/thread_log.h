// What one thread collects: its counters and its not-yet-merged events. Only the
// owning thread writes it; the recorder reads the published events under its lock.
// Keeping all of this per thread is what lets threads allocate without touching any
// shared cache line.
#pragma once

#include <atomic>
#include <cstdint>

#include "memusage/stats.h"

namespace memusage {

struct Event {
    uint64_t time;        // cycle counter
    int64_t heap_change;  // bytes this event added to (or took from) the heap
    uint32_t stack;       // the thread's stack use at the event (saturated: 4 GiB is plenty)
    uint32_t site;        // the site word (site_accounts.h); 0 when sites are off
};
static_assert(sizeof(Event) == 24, "a log holds as many events as before sites");

struct ThreadLog {
    // Owner only.
    Stats stats;
    uintptr_t stack_start;  // the first stack pointer seen on this thread

    // While set, the thread records straight into the recorder's stream, without its
    // log, the lock or a fence: it is the only thread recording. The owner sets it,
    // under the recorder's lock; another thread clears it (also under the lock), then
    // waits until `recording` is clear behind a process-wide barrier.
    std::atomic<bool> records_directly;
    std::atomic<bool> recording;  // the owner is between reading that flag and done

    // Events [0, published) are complete; the owner publishes with release order.
    std::atomic<uint32_t> published;
    uint32_t capacity;

    // Recorder only, under its lock.
    uint32_t consumed;  // events [0, consumed) are merged already
    bool in_use;
    ThreadLog* next;

    Event events[1];  // `capacity` of them; the log is allocated with room for all

    static size_t bytes_for(uint32_t capacity) {
        return sizeof(ThreadLog) + (capacity - 1) * sizeof(Event);
    }

    uint64_t stack_use(uintptr_t sp) {
        if (stack_start == 0) stack_start = sp;
        return stack_start > sp ? stack_start - sp : 0;
    }
};

}  // namespace memusage
