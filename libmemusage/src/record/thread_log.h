// SPDX-License-Identifier: MIT
// What one thread collects: its counters and its not-yet-merged events. Only the
// owning thread writes it; the recorder reads the published events under its lock.
// Keeping all of this per thread is what lets threads allocate without touching any
// shared cache line.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "memusage/stats.h"
#include "platform/stacks.h"
#include "record/block_description.h"

namespace memusage {

struct Event {
    uint64_t time;        // cycle counter
    int64_t heap_change;  // bytes this event added to (or took from) the heap
    uint32_t stack;       // the thread's stack use at the event (saturated: 4 GiB is plenty)
    uint32_t site;        // the site word (site_accounts.h); 0 when sites are off
};
static_assert(sizeof(Event) == 24, "a log holds as many events as before sites");

// What a heap event did to which block, kept beside its Event only while the event
// recording (MEMUSAGE_EVENTS) is on. allocate: address only; release: old_address only;
// resize: both; neither: no heap block (a profiling tick, a traced map). A described block
// (record/block_description.h): `ended` is what its release or resize record says of it,
// and `makes_described` says that the block the event made is one, whose header the record
// path stamps with the event's time.
struct BlockChange {
    uint64_t address = 0;      // the block after the event
    uint64_t old_address = 0;  // the block before it
    uint64_t size = 0;         // allocate and resize: the block's size now
    EndedBlock ended = {};
    bool makes_described = false;
};

// The live figures' copies from the program's calls (publish/publisher.h): a thread looks
// whether one is due every kCallsPerLook calls, and at once after a call that changed the
// heap by kLargeHeapChange or more (a block of that size made, freed or resized by that much:
// ThreadLog::publish_countdown set to kPublishNow).
inline constexpr int32_t kCallsPerLook = 64;
inline constexpr int64_t kLargeHeapChange = int64_t{256} * 1024;
inline constexpr int32_t kPublishNow = INT32_MIN / 2;

struct ThreadLog {
    // Owner only.
    Stats stats;
    uintptr_t stack_start;  // the first stack pointer seen on this thread's own stack
    StackRange own_stack;   // where that stack lies (platform/stacks.h)
    // Stack peaks (sites/stack_peaks.h): a depth above this is captured; UINT64_MAX while
    // they are off. A hint kept where the hot path reads it with the thread's other
    // figures: the capture decides from the thread's own figure.
    uint64_t stack_capture_above;
    // A call whose stack use is below this needs nothing but the subtraction (counting.h):
    // it is on the thread's own stack at or below its start, at most the capture hint, and
    // fits an event's 32 bits. 0 (the measured way every time) until that way sets it;
    // every figure it stands for only ever grows, so a limit once set stays valid.
    uint64_t stack_fast_limit;
    // A call this far above the start at most is on the thread's own stack, and uses none
    // of it: a thread whose first call came from a deeper frame makes most calls above it.
    uint64_t stack_room_above;
    // The live figures (publish/publisher.h): calls left before this thread next looks
    // whether a copy is due. Negative: now (kPublishNow below it: the call changed the heap
    // by much, and the copy is due sooner). 0 in a new log: its first call looks.
    int32_t publish_countdown;
    // Allocation sites (sites/site_accounts.h): the thread's latest new block with a site,
    // and the thread's heap calls when it was made (heap/counting.h). Its free as the
    // thread's next heap call makes it a temporary block (heaptrack's meaning).
    uint64_t latest_block;
    uint64_t latest_calls;
    // The alternate signal stack of the thread that has the log, kept with the log so
    // that the next thread to have it needs no new one (ending_signals.h).
    void* signal_stack;
    // For the per-thread table (owner only, and kept only while the table is on).
    uint64_t stack_peak;  // the deepest this thread's stack went
    int64_t net_heap;     // what this thread's events added to the heap, in sum
    // What its shrinking resizes gave back (the counters' free bytes are its frees' only):
    // the live figures' `held`, allocated less freed, needs both.
    uint64_t shrunk_bytes;
    uint64_t serial;  // threads in the order they first counted (recorder)
    char name[16];    // the thread's name, read when it ends (or at exit)

    // While set, the thread records straight into the recorder's stream, without its
    // log, the lock or a fence: it is the only thread recording. The owner sets it,
    // under the recorder's lock; another thread clears it (also under the lock), then
    // waits until `recording` is clear behind a process-wide barrier.
    std::atomic<bool> records_directly;
    std::atomic<bool> recording;  // the owner is between reading that flag and done

    // Events [0, published) are complete; the owner publishes with release order.
    std::atomic<uint32_t> published;
    uint32_t capacity;

    // Set when the run ends: the owner counts no call it starts after seeing it. Always
    // set in a nested log, which is never the thread's own.
    std::atomic<bool> stop_requested;
    // A signal handler's call that interrupted one of the owner's calls is counted in
    // this second log of the same thread, made when first needed.
    ThreadLog* nested;

    // Recorder only, under its lock.
    uint32_t consumed;  // events [0, consumed) are merged already
    // Direct recording beside other threads (direct_recording.h): when the thread's turn
    // began, full logs to pass before it tries again, and how many it passed last time.
    uint64_t direct_since;
    uint32_t direct_skips;
    uint32_t direct_backoff;
    bool in_use;
    ThreadLog* next;
    ThreadLog* parent;  // for a nested log, the thread's own
    // Where the owner keeps the log while it is between calls (null inside one), so the
    // end of the run can wait for calls in progress; null when unknown or the thread is
    // ending (its thread-local memory may go at any moment).
    ThreadLog* const* counting_slot;
    // The thread, so that its log is taken back once the kernel no longer knows it:
    // a thread still makes calls after its last thread-specific destructor.
    pid_t owner_process, owner_thread;
    bool ended;  // the owner's thread-specific destructor has run

    Event events[1];  // `capacity` of them; the log is allocated with room for all

    static size_t bytes_for(uint32_t capacity, bool with_blocks = false) {
        return sizeof(ThreadLog) + (capacity - 1) * sizeof(Event) +
               (with_blocks ? capacity * sizeof(BlockChange) : 0);
    }
    // With the event recording on, the logs are made with the blocks of events
    // [0, capacity) after the events, written with the events they go with. Not a field:
    // one would move the fields the owner and the merge share across cache lines.
    BlockChange* blocks() { return reinterpret_cast<BlockChange*>(events + capacity); }

    // The stack use measured in full: a counted call comes here only when the compare
    // against stack_fast_limit cannot answer (counting.h), a profiling tick always. The
    // thread's first call (stack_start still 0) sets the start on the way out.
    uint64_t stack_use(uintptr_t sp) {
        if (__builtin_expect(!own_stack.holds(sp), 0)) return other_stack_use(sp);
        if (__builtin_expect(stack_start > sp, 1)) return stack_start - sp;
        return at_or_above_start(sp);
    }
    // The first call on the thread's own stack sets where its stack starts; a call at or
    // above that uses none.
    __attribute__((noinline)) uint64_t at_or_above_start(uintptr_t sp) {
        if (stack_start == 0) stack_start = sp;
        return 0;
    }
    // Off the thread's own stack: on its alternate signal stack, the depth there (from its
    // top); on a stack we know nothing of (a coroutine's), 0: it is not measured.
    __attribute__((noinline, cold)) static uint64_t other_stack_use(uintptr_t sp) {
        uint64_t depth = 0;
        uintptr_t top;
        return signal_stack_depth(sp, depth, top) ? depth : 0;
    }
    // The stack_fast_limit the thread's figures allow now.
    void refresh_stack_fast_limit() {
        if (stack_start == 0 || !own_stack.holds(stack_start)) {
            stack_fast_limit = 0;
            stack_room_above = 0;
            return;
        }
        stack_room_above = own_stack.high - stack_start;
        uint64_t deepest = UINT32_MAX;
        if (stack_start - own_stack.low < deepest) deepest = stack_start - own_stack.low;
        if (stack_capture_above < deepest) deepest = stack_capture_above;
        stack_fast_limit = deepest + 1;
    }
    // For the per-thread table (kept only while that is on).
    void note_stack(uint64_t use) { stack_peak = use > stack_peak ? use : stack_peak; }
};

}  // namespace memusage
