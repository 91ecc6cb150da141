// SPDX-License-Identifier: MIT
#include "record/direct_recording.h"

#include <sched.h>

#include "platform/clock.h"
#include "record/process_barrier.h"

namespace memusage {

void DirectRecording::init() { allowed_ = process_barrier::prepare(); }

void DirectRecording::become_locked(ThreadLog& log) {
    if (!allowed_) return;
    set_owner(&log);
    log.direct_since = monotonic_nanoseconds();
    log.records_directly.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    // A signal handler of this thread left events in its nested log (while this thread
    // held the lock): they go into the stream before the thread's next ones. A handler
    // running after this check clears the flag itself.
    if (log.nested != nullptr &&
        log.nested->published.load(std::memory_order_relaxed) != log.nested->consumed)
        log.records_directly.store(false, std::memory_order_relaxed);
}

// Quiet (taken): every other thread's events are merged and it is not between reading its
// flags and publishing an event (the thread's own nested log is its own business:
// become_locked).
DirectRecording::Share DirectRecording::others_state(const ThreadLog& log, const ThreadLog* logs) {
    Share state = Share::taken;
    for (const ThreadLog* other = logs; other != nullptr; other = other->next) {
        if (!other->in_use || other == &log || other->parent == &log) continue;
        if (other->published.load(std::memory_order_acquire) != other->consumed) return Share::busy;
        if (other->recording.load(std::memory_order_acquire)) state = Share::mid_event;
    }
    return state;
}

void DirectRecording::back_off(ThreadLog& log) {
    uint32_t backoff = 2 * log.direct_backoff + 1;
    log.direct_backoff = backoff < kMaxBackoff ? backoff : kMaxBackoff;
    log.direct_skips = log.direct_backoff;
}

DirectRecording::Share DirectRecording::share_locked(ThreadLog& log, ThreadLog* logs) {
    if (!allowed_ || owner_ != nullptr) return Share::busy;
    if (log.direct_skips > 0) {
        --log.direct_skips;
        return Share::busy;
    }
    Share state = others_state(log, logs);
    if (state != Share::taken) return state;
    become_locked(log);
    // After the barrier, a thread about to log either sees active() (and takes the right
    // away before it logs) or shows here that it is recording or has published.
    process_barrier::run();
    if (others_state(log, logs) == Share::taken) return Share::taken;
    revoke_locked(&log);
    back_off(log);
    return Share::busy;
}

bool DirectRecording::revoke_locked(ThreadLog* caller, int max_waits) {
    ThreadLog* owner = owner_;
    if (owner == nullptr) return true;
    set_owner(nullptr);
    owner->records_directly.store(false, std::memory_order_relaxed);
    // The caller's own recording is open only if a signal handler interrupted it: the
    // stream is then halfway through an event.
    if (owner == caller) return !owner->recording.load(std::memory_order_relaxed);
    // A turn that ended soon: the owner waits longer before its next one.
    if (monotonic_nanoseconds() - owner->direct_since < kShortTurnNanoseconds)
        back_off(*owner);
    else
        owner->direct_backoff = 0;
    // After the barrier, the owner either sees the flag clear or shows it is recording.
    process_barrier::run();
    for (int waits = 0; owner->recording.load(std::memory_order_acquire); ++waits) {
        if (waits == max_waits) return false;
        sched_yield();
    }
    return true;
}

}  // namespace memusage
