// SPDX-License-Identifier: MIT
// The threads' logs through their life: made or reused when a thread first counts, a
// nested one for a signal handler's calls, merged when full, taken back when the thread
// is gone (its counters kept); the one thread recording alone may skip its log
// (direct_recording.h) until another arrives. Threads only ever meet here, under one
// lock taken once per full log, never per event.
#pragma once

#include <cstdint>

#include "memusage/stats.h"
#include "record/direct_recording.h"
#include "record/event_recording.h"
#include "record/log_merge.h"
#include "record/recorder_lock.h"
#include "record/thread_log.h"
#include "record/thread_table.h"

namespace memusage {

class ThreadLogs {
  public:
    static constexpr uint32_t kMaxLogCapacity = 1024;

    constexpr ThreadLogs(RecorderLock& lock, DirectRecording& direct, LogMerge& merge,
                         EventRecording& recording, ThreadTable& table)
        : lock_(lock), direct_(direct), merge_(merge), recording_(recording), table_(table) {}
    ThreadLogs(const ThreadLogs&) = delete;
    ThreadLogs& operator=(const ThreadLogs&) = delete;

    // Logs of `capacity` events (at most kMaxLogCapacity).
    void init(uint32_t capacity);
    // The logs have room for their events' blocks (set once, before any thread records).
    void make_with_blocks() { have_blocks_ = true; }
    bool have_blocks() const { return have_blocks_; }
    // The logs, made or reused, through ThreadLog::next.
    ThreadLog* first() const { return logs_; }

    // Recorder::attach_thread, detach_thread, end_thread and begin_nested.
    ThreadLog* attach_thread(ThreadLog* const* counting_slot);
    void detach_thread(ThreadLog* log);
    void end_thread(ThreadLog* log);
    ThreadLog* begin_nested(ThreadLog& own);

    // The owner's log is full: everything in it goes into the stream, and it starts over.
    void merge_full_log(ThreadLog& log);
    void empty_full_log_locked(ThreadLog& log);

    // The run is ending: no new logs, and every thread counts no call it starts from now
    // on. True when a thread other than `finishing` may still be inside a call.
    bool stop(const ThreadLog* finishing);
    bool stopping() const { return stopping_; }
    void wait_for_calls_in_progress(const ThreadLog* finishing);
    // The counters of the threads that exited and of those with a log in use.
    void fold_counts_locked(Stats& totals) const;

    // fork(), in the child, with the lock: the other threads' logs, merged already, are
    // taken back (those threads do not exist here).
    void forget_other_threads_in_child(ThreadLog* own);

  private:
    // No other thread has a log in use (the thread's own nested log does not count).
    bool alone_locked(const ThreadLog& log) const;
    ThreadLog* take_free_log_locked(bool may_merge);
    ThreadLog* attach_nested(ThreadLog& own, bool may_wait);
    void reset_log(ThreadLog& log, ThreadLog* parent);
    // Takes back the logs of threads that are gone: those whose destructor has run, or
    // with `every_thread`, all of them.
    void reclaim_locked(bool every_thread);
    void retire_locked(ThreadLog& log);

    RecorderLock& lock_;
    DirectRecording& direct_;
    LogMerge& merge_;
    EventRecording& recording_;
    ThreadTable& table_;
    uint32_t log_capacity_ = kMaxLogCapacity;
    bool have_blocks_ = false;  // see ThreadLog::blocks()
    ThreadLog* logs_ = nullptr;
    uint32_t log_count_ = 0;
    uint32_t ended_count_ = 0;         // logs in use whose thread may be gone (not the main thread)
    uint32_t next_full_reclaim_ = 64;  // log count at which every log's thread is looked for
    bool stopping_ = false;            // the run is ending: no new logs
    uint64_t next_serial_ = 0;

    Stats retired_ = {};  // counters of threads that have exited
};

}  // namespace memusage
