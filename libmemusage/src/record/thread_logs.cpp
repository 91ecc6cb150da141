// SPDX-License-Identifier: MIT
#include "record/thread_logs.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/clock.h"
#include "platform/pages.h"
#include "record/process_barrier.h"
#include "sites/own_memory.h"
#include "sites/stack_peaks.h"

namespace memusage {
namespace {

bool thread_alive(pid_t process, pid_t thread) {
    return syscall(SYS_tgkill, process, thread, 0) == 0 || errno != ESRCH;
}

// What a thread keeps in its counting slot, which lives in the thread's own memory. A
// thread just joined can still answer thread_alive while the joiner has already unmapped
// its stack (with its thread-local memory): the read says where a load would fault, also
// where process_vm_readv is refused (a sandbox, qemu-user, where a thread's exit wakes its
// joiner well before the thread is gone). False when the memory is gone, or cannot be read
// without a fault: the thread is then not waited for.
bool read_counting_slot(ThreadLog* const* slot, const ThreadLog*& value) {
    return own_memory::read(&value, reinterpret_cast<uintptr_t>(slot), sizeof(void*));
}

// Asynchronous signals stay pending while a log's counters move to the retired total, so
// that a handler ending the run on this thread never finds them counted twice or not at
// all. Faults stay deliverable, to be reported as usual.
class SignalsBlocked {
  public:
    SignalsBlocked() {
        sigset_t all;
        sigfillset(&all);
        for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&all, fault);
        pthread_sigmask(SIG_BLOCK, &all, &saved_);
    }
    ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
    SignalsBlocked(const SignalsBlocked&) = delete;
    SignalsBlocked& operator=(const SignalsBlocked&) = delete;

  private:
    sigset_t saved_;
};

}  // namespace

void ThreadLogs::init(uint32_t capacity) {
    log_capacity_ = capacity < kMaxLogCapacity ? capacity : kMaxLogCapacity;
}

void ThreadLogs::reset_log(ThreadLog& log, ThreadLog* parent) {
    memset(&log.stats, 0, sizeof(log.stats));
    log.stack_start = parent != nullptr ? parent->stack_start : 0;
    log.own_stack = parent != nullptr ? parent->own_stack : StackRange{};
    log.stack_capture_above = parent != nullptr      ? parent->stack_capture_above
                              : stack_peaks::enabled ? 0
                                                     : UINT64_MAX;
    log.stack_fast_limit = 0;
    log.stack_room_above = 0;
    log.stack_peak = 0;
    log.latest_block = 0;
    log.latest_calls = 0;
    log.net_heap = 0;
    log.shrunk_bytes = 0;
    memset(log.name, 0, sizeof(log.name));
    log.records_directly.store(false, std::memory_order_relaxed);
    log.recording.store(false, std::memory_order_relaxed);
    log.published.store(0, std::memory_order_relaxed);
    log.capacity = log_capacity_;
    log.stop_requested.store(false, std::memory_order_relaxed);
    log.nested = nullptr;
    log.consumed = 0;
    log.direct_since = 0;
    log.direct_skips = 0;
    log.direct_backoff = 0;
    log.parent = parent;
    log.counting_slot = nullptr;
    log.ended = false;
}

// A log nobody uses, or a new one. `may_merge`: logs of threads that are gone may be
// taken back, which merges their events into the stream.
ThreadLog* ThreadLogs::take_free_log_locked(bool may_merge) {
    if (may_merge && ended_count_ > 0) reclaim_locked(false);
    for (int attempt = 0;; ++attempt) {
        for (ThreadLog* log = logs_; log != nullptr; log = log->next)
            if (!log->in_use) return log;
        // A thread whose first call came after its destructors never ends its log: look
        // for every log's thread now and then (each time the count doubles).
        if (attempt > 0 || !may_merge || log_count_ < next_full_reclaim_) break;
        next_full_reclaim_ = log_count_ * 2;
        reclaim_locked(true);
    }
    if (!merge_.ensure_cursor_room(log_count_ + 1)) return nullptr;
    auto* log =
        static_cast<ThreadLog*>(allocate_pages(ThreadLog::bytes_for(log_capacity_, have_blocks_)));
    if (log == nullptr) return nullptr;
    log->in_use = false;
    log->next = logs_;
    logs_ = log;
    ++log_count_;
    return log;
}

ThreadLog* ThreadLogs::attach_thread(ThreadLog* const* counting_slot) {
    int saved_errno = errno;
    pid_t process = getpid();
    auto thread = static_cast<pid_t>(syscall(SYS_gettid));
    lock_.lock();
    ThreadLog* log = stopping_ ? nullptr : take_free_log_locked(true);
    if (log != nullptr) {
        reset_log(*log, nullptr);
        log->counting_slot = counting_slot;
        log->owner_process = process;
        log->owner_thread = thread;
        log->serial = next_serial_++;
        log->in_use = true;
        if (alone_locked(*log))
            direct_.become_locked(*log);
        else
            direct_.revoke_locked(log);
    }
    lock_.unlock();
    errno = saved_errno;
    return log;
}

void ThreadLogs::detach_thread(ThreadLog* log) {
    lock_.lock();
    retire_locked(*log);
    lock_.unlock();
}

void ThreadLogs::end_thread(ThreadLog* log) {
    lock_.lock();
    // The main thread is known to the kernel as long as the process is: its log is
    // folded in at the end, as the logs in use are.
    if (!log->ended && log->owner_thread != log->owner_process) ++ended_count_;
    log->ended = true;
    log->counting_slot = nullptr;
    lock_.unlock();
}

void ThreadLogs::reclaim_locked(bool every_thread) {
    int saved_errno = errno;
    pid_t process = getpid();
    uint32_t still_ended = 0;
    for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
        if (!log->in_use || log->parent != nullptr || (!every_thread && !log->ended)) continue;
        // Logs from before a fork belong to the one thread the child has.
        if (log->owner_process != process || log->owner_thread == process) continue;
        if (!thread_alive(process, log->owner_thread))
            retire_locked(*log);
        else if (log->ended)
            ++still_ended;
    }
    if (!every_thread) ended_count_ = still_ended;
    errno = saved_errno;
}

void ThreadLogs::retire_locked(ThreadLog& log) {
    SignalsBlocked blocked;
    if (table_.keeps_rows() && log.parent == nullptr) table_.keep_row_locked(log);
    // The merge below writes the stream: nobody else may be recording into it directly.
    direct_.revoke_locked(&log);
    for (ThreadLog* retiring : {log.nested, &log}) {
        if (retiring == nullptr || !retiring->in_use) continue;
        merge_.merge_locked(logs_, retiring, cycle_counter_fenced());
        retired_.add_counts(retiring->stats);
        retiring->in_use = false;
    }
    if (recording_.file() != nullptr && log.parent == nullptr)
        recording_.record_thread_name_locked(log);
    if (log.ended && log.owner_thread != log.owner_process) --ended_count_;
    log.ended = false;
    log.nested = nullptr;
}

ThreadLog* ThreadLogs::attach_nested(ThreadLog& own, bool may_wait) {
    if (may_wait)
        lock_.lock();
    else if (!lock_.try_lock())
        return nullptr;
    // Without waiting, the thread may be halfway through adding to the stream: nothing
    // here may touch it.
    ThreadLog* log = stopping_ ? nullptr : take_free_log_locked(may_wait);
    if (log != nullptr) {
        reset_log(*log, &own);
        log->stop_requested.store(true, std::memory_order_relaxed);
        log->owner_process = own.owner_process;
        log->owner_thread = own.owner_thread;
        log->in_use = true;
        own.nested = log;
    }
    lock_.unlock();
    return log;
}

ThreadLog* ThreadLogs::begin_nested(ThreadLog& own) {
    if (own.stop_requested.load(std::memory_order_relaxed)) return nullptr;
    ThreadLog* nested = own.nested;
    // The lock may be waited for unless this thread may hold it, or another thread holding
    // it may wait for this one (which is halfway through recording directly).
    bool may_wait = !RecorderLock::wanted_here() && !own.recording.load(std::memory_order_relaxed);
    if (nested == nullptr) {
        int saved_errno = errno;
        nested = !RecorderLock::wanted_here() ? attach_nested(own, may_wait) : nullptr;
        errno = saved_errno;
        if (nested == nullptr) return nullptr;
    }
    uint32_t pending = nested->published.load(std::memory_order_relaxed);
    // Another thread recording directly stops before this call logs anything. Not when
    // that means waiting for the lock this thread may hold (inside an attach, or an
    // in-process API call before it stopped that thread itself): the call's event is
    // then merged by its stamp after the events that thread recorded meanwhile.
    if (direct_.active()) {
        if (may_wait) lock_.lock();
        if (may_wait || lock_.try_lock()) {
            direct_.revoke_others_locked(&own);
            lock_.unlock();
        }
    }
    if (may_wait && pending != 0) {
        // Merged now, while that is safe: the log never fills when it is not.
        lock_.lock();
        empty_full_log_locked(*nested);
        lock_.unlock();
    } else if (!may_wait && pending + 1 >= nested->capacity) {
        return nullptr;  // this call's event would need a merge
    }
    // The thread's next events must not reach the stream ahead of this call's.
    own.records_directly.store(false, std::memory_order_relaxed);
    return nested;
}

bool ThreadLogs::alone_locked(const ThreadLog& log) const {
    for (const ThreadLog* other = logs_; other != nullptr; other = other->next)
        if (other->in_use && other != &log && other->parent != &log) return false;
    return true;
}

// The owner's log is full: everything in it goes into the stream, and it starts over.
void ThreadLogs::empty_full_log_locked(ThreadLog& log) {
    direct_.revoke_others_locked(&log);  // the merge writes the stream
    merge_.merge_locked(logs_, &log, cycle_counter_fenced());
    log.consumed = 0;
    log.published.store(0, std::memory_order_relaxed);
}

void ThreadLogs::merge_full_log(ThreadLog& log) {
    lock_.lock();
    empty_full_log_locked(log);
    if (ended_count_ > 0) reclaim_locked(false);  // so that a thread left alone knows it
    DirectRecording::Share shared = DirectRecording::Share::busy;
    if (log.parent == nullptr) {
        if (alone_locked(log))
            direct_.become_locked(log);
        else
            shared = direct_.share_locked(log, logs_);
    }
    lock_.unlock();
    if (shared == DirectRecording::Share::mid_event) sched_yield();
}

// Every thread now sees its stop flag at its next call; the barrier makes sure that a
// thread that did not is seen inside its call (its slot empty), and that call is let end.
void ThreadLogs::wait_for_calls_in_progress(const ThreadLog* finishing) {
    process_barrier::run();
    uint64_t deadline = monotonic_nanoseconds() + kExitWaitNanoseconds;
    for (int round = 0;; ++round) {
        bool in_progress = false;
        lock_.lock();
        for (const ThreadLog* log = logs_; log != nullptr && !in_progress; log = log->next) {
            if (!log->in_use || log == finishing || log->counting_slot == nullptr) continue;
            // A thread gone without its destructors having run took its slot with it.
            if (!thread_alive(log->owner_process, log->owner_thread)) continue;
            // Empty, or the nested log: inside a call.
            const ThreadLog* counting = nullptr;
            if (!read_counting_slot(log->counting_slot, counting)) continue;  // gone with it
            in_progress = counting == nullptr || counting->parent != nullptr;
        }
        lock_.unlock();
        if (!in_progress || monotonic_nanoseconds() > deadline) return;
        pause_briefly(round);
    }
}

bool ThreadLogs::stop(const ThreadLog* finishing) {
    stopping_ = true;
    bool others_counting = false;
    for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
        if (!log->in_use) continue;
        log->stop_requested.store(true, std::memory_order_relaxed);
        others_counting |= log != finishing && log->counting_slot != nullptr;
    }
    return others_counting;
}

void ThreadLogs::fold_counts_locked(Stats& totals) const {
    totals.add_counts(retired_);
    for (ThreadLog* log = logs_; log != nullptr; log = log->next)
        if (log->in_use) totals.add_counts(log->stats);
}

void ThreadLogs::forget_other_threads_in_child(ThreadLog* own) {
    for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
        // Threads that do not exist in the child; the forking thread keeps its logs.
        bool own_thread = log == own || (own != nullptr && log == own->nested);
        if (log->in_use && !own_thread) {
            retired_.add_counts(log->stats);
            log->in_use = false;
            log->ended = false;
        }
    }
    ended_count_ = 0;
}

}  // namespace memusage
