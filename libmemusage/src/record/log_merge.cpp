// SPDX-License-Identifier: MIT
#include "record/log_merge.h"

#include "platform/pages.h"

namespace memusage {

bool LogMerge::ensure_cursor_room(uint32_t count) {
    if (count <= cursor_capacity_) return true;
    uint32_t capacity = cursor_capacity_ == 0 ? 64 : cursor_capacity_ * 2;
    while (capacity < count) capacity *= 2;
    auto* cursors = static_cast<Cursor*>(allocate_pages(capacity * sizeof(Cursor)));
    if (cursors == nullptr) return false;
    // Replaced before the old one goes: a fork in between leaves the child usable ones.
    Cursor* old_cursors = cursors_;
    uint32_t old_capacity = cursor_capacity_;
    cursors_ = cursors;
    cursor_capacity_ = capacity;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (old_cursors != nullptr) free_pages(old_cursors, old_capacity * sizeof(Cursor));
    return true;
}

// A k-way merge over the threads' unmerged events, smallest stamp first. Events of
// other threads stamped at or after `cutoff` stay for a later merge: a thread may
// still be publishing an earlier one. A malloc is published before its block can reach
// another thread, and that thread's free is stamped after a fence, so the free carries
// the later stamp and, once merged, its malloc is merged too: a free is never merged
// ahead of its allocation.
void LogMerge::merge_locked(ThreadLog* logs, ThreadLog* own, uint64_t cutoff) {
    // A full buffer is written at once, unless exit() came from a signal handler that
    // stopped its owner in between.
    if (stream_.output != nullptr && stream_.output_used == stream_.output_capacity)
        output_.write(stream_);
    uint32_t count = 0;
    for (ThreadLog* log = logs; log != nullptr; log = log->next) {
        if (!log->in_use) continue;
        uint32_t end = log->published.load(std::memory_order_acquire);
        if (log->consumed >= end) continue;
        cursors_[count++] = Cursor{log->events + log->consumed, log->events + end, log, log == own};
    }
    auto head = [&](uint32_t i) { return i < count ? cursors_[i].next->time : UINT64_MAX; };
    auto sift_down = [&](uint32_t i) {
        for (;;) {
            uint32_t smallest = i, left = 2 * i + 1, right = left + 1;
            if (head(left) < head(smallest)) smallest = left;
            if (head(right) < head(smallest)) smallest = right;
            if (smallest == i) return;
            Cursor swapped = cursors_[i];
            cursors_[i] = cursors_[smallest];
            cursors_[smallest] = swapped;
            i = smallest;
        }
    };
    for (uint32_t i = count / 2; i-- > 0;) sift_down(i);
    while (count > 0) {
        Cursor& top = cursors_[0];
        uint64_t bound = top.take_all ? UINT64_MAX : cutoff;
        if (top.next->time < bound) {
            // Everything up to the next thread's first event goes in one run.
            uint64_t next_head = head(1) < head(2) ? head(1) : head(2);
            top.next = emit_run(*top.log, top.next, top.end, next_head < bound ? next_head : bound);
            if (top.next != top.end) {
                sift_down(0);
                continue;
            }
        }
        cursors_[0] = cursors_[--count];
        sift_down(0);
    }
}

// The hot loop of the merge, on a local copy of the stream's state so that it can stay in
// registers. Whenever the stream is stored, the log says how far it is merged: a fork that
// catches a merge (during a write, most likely) leaves the child a stream and logs that
// agree.
template <bool kRecordingEvents>
inline const Event* LogMerge::emit_run_as(ThreadLog& log, const Event* event, const Event* end,
                                          uint64_t bound) {
    EventStream stream = stream_;
    // A nested log's events are its thread's.
    const ThreadLog& thread = log.parent != nullptr ? *log.parent : log;
    uint64_t serial = thread.serial + 1, tid = static_cast<uint64_t>(thread.owner_thread);
    do {
        // Into the recording before the stream: a signal handler's exit() that stops the
        // data file's write below finds every event of the stream in the recording.
        if constexpr (kRecordingEvents)
            recording_.file()->add(serial, tid, event->time, event->site,
                                   log.blocks()[event - log.events]);
        if (__builtin_expect(stream.add(event->heap_change, event->stack, event->time, event->site),
                             0)) {
            stream_ = stream;
            // The log says how far it is merged whenever the buffer is written: a signal
            // handler's exit() that stops the write finds the merge caught up.
            log.consumed = static_cast<uint32_t>(event + 1 - log.events);
            output_.write(stream_);  // which starts the buffer over
            stream = stream_;
        }
        ++event;
    } while (event != end && event->time < bound);
    stream_ = stream;
    log.consumed = static_cast<uint32_t>(event - log.events);
    return event;
}

inline const Event* LogMerge::emit_run(ThreadLog& log, const Event* event, const Event* end,
                                       uint64_t bound) {
    if (__builtin_expect(recording_.file() != nullptr, 0))
        return emit_run_recording(log, event, end, bound);
    return emit_run_as<false>(log, event, end, bound);
}

const Event* LogMerge::emit_run_recording(ThreadLog& log, const Event* event, const Event* end,
                                          uint64_t bound) {
    return emit_run_as<true>(log, event, end, bound);
}

}  // namespace memusage
