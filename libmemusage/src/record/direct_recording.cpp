#include "record/direct_recording.h"

#include <sched.h>

#include "record/process_barrier.h"

namespace memusage {

void DirectRecording::init() { allowed_ = process_barrier::prepare(); }

void DirectRecording::become_locked(ThreadLog& log) {
    if (!allowed_) return;
    owner_ = &log;
    log.records_directly.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    // A signal handler of this thread left events in its nested log (while this thread
    // held the lock): they go into the stream before the thread's next ones. A handler
    // running after this check clears the flag itself.
    if (log.nested != nullptr &&
        log.nested->published.load(std::memory_order_relaxed) != log.nested->consumed)
        log.records_directly.store(false, std::memory_order_relaxed);
}

bool DirectRecording::revoke_locked(ThreadLog* caller, int max_waits) {
    ThreadLog* owner = owner_;
    if (owner == nullptr) return true;
    owner_ = nullptr;
    owner->records_directly.store(false, std::memory_order_relaxed);
    // The caller's own recording is open only if a signal handler interrupted it: the
    // stream is then halfway through an event.
    if (owner == caller) return !owner->recording.load(std::memory_order_relaxed);
    // After the barrier, the owner either sees the flag clear or shows it is recording.
    process_barrier::run();
    for (int waits = 0; owner->recording.load(std::memory_order_acquire); ++waits) {
        if (waits == max_waits) return false;
        sched_yield();
    }
    return true;
}

}  // namespace memusage
