// SPDX-License-Identifier: MIT
// Direct recording. A thread recording alone needs neither its log nor the lock nor a
// fenced stamp (which costs as much as the program's own malloc here): it adds its events
// to the stream itself (Recorder::record_directly). This is who has that right, given and
// taken under the recorder's lock. A thread whose log fills gets it when it is the only
// thread, or when every other thread is quiet (nothing unmerged, not recording: threads
// taking turns on one core, a busy thread beside idle ones). Another thread takes it away
// before it records anything itself: the events stay in the order they happened.
#pragma once

#include <atomic>
#include <cstdint>

#include "record/thread_log.h"

namespace memusage {

class DirectRecording {
  public:
    // Allowed where the kernel has the barrier it needs.
    void init();
    // The thread recording directly, if any.
    ThreadLog* owner() const { return owner_; }
    // Whether a thread records directly: read without the lock by every thread that logs,
    // before each event (a thread that finds it set stops that first, under the lock).
    bool active() const { return active_.load(std::memory_order_relaxed); }
    // `log`'s thread, alone, records directly from now on (if allowed).
    void become_locked(ThreadLog& log);
    // `log`'s thread records directly from now on if every other thread among `logs` (a
    // list through ThreadLog::next) is quiet, before and after a process-wide barrier
    // (after it, a thread that starts recording sees `active()`). Tried at most once per
    // full log, less often each time such a turn ends soon (taken away within
    // kShortTurnNanoseconds).
    enum class Share : uint8_t {
        taken,      // the thread records directly
        busy,       // another thread has events on their way
        mid_event,  // none, but one is between reading its flags and publishing an event:
                    // where a thread sharing this one's core stops when its time is up, and
                    // stays until this one yields the core (the caller, without the lock)
    };
    Share share_locked(ThreadLog& log, ThreadLog* logs);
    // Ends direct recording; false if the owner is still recording after `max_waits`.
    bool revoke_locked(ThreadLog* caller, int max_waits = -1);
    // Another thread recording directly would be writing the stream while `own` reads it
    // or logs: that ends (it resumes once its log fills and the others are quiet).
    void revoke_others_locked(ThreadLog* own) {
        if (owner_ != nullptr && owner_ != own) revoke_locked(own);
    }
    // The run is over: nobody records directly any more.
    void end() { allowed_ = false; }
    // fork(), in the child: a thread that recorded directly does not exist here (unless
    // it is `own`, the forking one).
    void forget_owner_in_child(ThreadLog* own) {
        if (owner_ != own) set_owner(nullptr);
    }

    static constexpr uint64_t kShortTurnNanoseconds = 100000;
    static constexpr uint32_t kMaxBackoff = 64;  // full logs passed before trying again

  private:
    void set_owner(ThreadLog* owner) {
        owner_ = owner;
        active_.store(owner != nullptr, std::memory_order_relaxed);
    }
    static Share others_state(const ThreadLog& log, const ThreadLog* logs);
    static void back_off(ThreadLog& log);

    bool allowed_ = false;  // the kernel has the barrier, and the run is not over
    ThreadLog* owner_ = nullptr;
    // owner_ is set. On a line of its own, away from the stream the owner writes at every
    // event: every logging thread reads it at every event.
    alignas(64) std::atomic<bool> active_{false};
};

}  // namespace memusage
