// Turns the threads' event logs into one event stream: merged in time order, the
// global heap rebuilt from the per-event changes, peaks taken, and (with a data
// file) written as glibc's records. Threads only ever meet here, under one lock
// taken once per full log, never per event; a thread alone skips even its log.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "clock.h"
#include "data_file.h"
#include "memusage/record.h"
#include "memusage/stats.h"
#include "site_accounts.h"
#include "thread_log.h"

namespace memusage {

// The merged stream's running state: the global heap, the peaks and the records
// waiting to be written.
struct Stream {
    int64_t heap = 0;
    uint64_t last_time = 0;
    uint64_t heap_peak = 0, stack_peak = 0, total_peak = 0;
    Record* output = nullptr;  // null without a data file: the events only feed the peaks
    uint32_t output_used = 0;
    uint32_t output_capacity = 0;
    SiteAccounts* sites = nullptr;  // null unless allocation sites are on

    // One event; true when the record buffer is full and must be written.
    bool add(int64_t heap_change, uint64_t stack, uint64_t time, uint32_t site = 0) {
        heap += heap_change;
        uint64_t current = heap > 0 ? static_cast<uint64_t>(heap) : 0;
        if (__builtin_expect(sites != nullptr, 0)) sites->on_event(site, heap_change, current);
        heap_peak = current > heap_peak ? current : heap_peak;
        stack_peak = stack > stack_peak ? stack : stack_peak;
        total_peak = current + stack > total_peak ? current + stack : total_peak;
        if (output == nullptr) return false;
        // Stamps of different cores can disagree by a few cycles; the file stays in order.
        last_time = time > last_time ? time : last_time;
        Record& record = output[output_used++];
        record.heap = current;
        record.stack = stack;
        record.set_time(last_time);
        return output_used == output_capacity;
    }
};

class Recorder {
  public:
    static constexpr uint32_t kMaxLogCapacity = 1024;

    // `file` may be null: the events then only feed the peaks. `buffer_records` is
    // MEMUSAGE_BUFFER_SIZE: how many records are collected before each write.
    bool init(DataFile* file, uint32_t buffer_records);

    // A thread's log, zeroed; null if the kernel refuses memory.
    ThreadLog* attach_thread();
    // The thread is going away: its events are merged and its counters kept.
    void detach_thread(ThreadLog* log);

    // Allocation sites: the stream keeps their figures from now on. Before any thread records.
    void keep_site_figures(SiteAccounts* accounts) { stream_.sites = accounts; }

    // One event of the owner's thread: straight into the stream while it is the only
    // thread recording, else appended to its log, merged when the log fills up. `site`
    // is the event's site word (site_accounts.h).
    void record(ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site = 0) {
        if (log.records_directly.load(std::memory_order_relaxed) &&
            record_directly(log, heap_change, stack, site, nullptr))
            return;
        uint32_t n = log.published.load(std::memory_order_relaxed);
        log.events[n] = Event{ordered_cycle_counter(), heap_change, saturated(stack), site};
        log.published.store(n + 1, std::memory_order_release);
        if (__builtin_expect(n + 1 == log.capacity, 0)) merge_full_log(log);
    }
    // The same from a signal handler, which must never wait: the event is dropped
    // when the log would need merging while another thread merges.
    void record_from_signal(ThreadLog& log, uint64_t time, uint64_t stack);

    // At exit: merges everything, writes the remaining records and the final header,
    // closes the file, and returns the whole process's counters and peaks. `finishing`
    // is the calling thread's log (null if it has none or is unknown): when that thread
    // is the one recording directly, ending that needs no process-wide barrier, a system
    // call that a program's system-call filter might punish.
    void finish(Stats& totals, uint64_t end_time, ThreadLog* finishing = nullptr);
    // After a fatal signal: the same for the file only, if the lock can be had soon.
    // True when every event was merged (and the site figures are complete).
    bool finish_file_after_crash(uint64_t end_time, ThreadLog* crashing = nullptr);

    // fork(): the child keeps counting, but the parent's file is not its to write.
    // `forking` is the calling thread's log (null if it has none).
    void before_fork(ThreadLog* forking);
    void after_fork_in_parent() { pthread_mutex_unlock(&mutex_); }
    void after_fork_in_child(ThreadLog* own);

  private:
    // Direct recording. A thread alone needs neither its log nor the lock nor a fenced
    // stamp (which costs as much as the program's own malloc here): it adds its events
    // to the stream itself, stamped only when there is a file. The first other thread
    // to arrive takes that right away, behind a process-wide barrier, and from then on
    // every thread logs, stamped with a fenced reading of the cycle counter so that the
    // processor cannot read it before it has seen what another thread handed over (a
    // block to free, a flag saying a block was freed): a consequence is always stamped
    // after its cause. A thread that finds itself alone again when its log fills goes
    // back to direct recording.
    // `signal_time`: the event is a profiling tick, taken at that time by a handler.
    bool record_directly(ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site,
                         const uint64_t* signal_time) {
        log.recording.store(true, std::memory_order_relaxed);
        // The barrier another thread runs orders the store above before the load below.
        std::atomic_signal_fence(std::memory_order_seq_cst);
        bool direct = log.records_directly.load(std::memory_order_relaxed);
        if (direct) {
            uint64_t time = signal_time != nullptr      ? *signal_time
                            : stream_.output != nullptr ? cycle_counter()
                                                        : 0;
            if (__builtin_expect(stream_.add(heap_change, saturated(stack), time, site), 0))
                write_output();
        }
        log.recording.store(false, std::memory_order_release);
        return direct;
    }
    static uint32_t saturated(uint64_t stack) {
        return stack < UINT32_MAX ? static_cast<uint32_t>(stack) : UINT32_MAX;
    }
    void become_direct_locked(ThreadLog& log);
    bool alone_locked(const ThreadLog& log) const;
    // Ends direct recording; false if the owner is still recording after `max_waits`.
    bool revoke_direct_locked(ThreadLog* caller, int max_waits = -1);

    struct Cursor {
        const Event* next;
        const Event* end;
        ThreadLog* log;
        bool take_all;  // the merging thread's own events: all of them, whatever their stamp
    };

    void merge_full_log(ThreadLog& log);
    void empty_full_log_locked(ThreadLog& log);
    void merge_locked(ThreadLog* own, uint64_t cutoff);
    const Event* emit_run(const Event* event, const Event* end, uint64_t bound);
    void write_output();
    static constexpr int kCrashWaits = 2000;  // yields a fatal signal's handler waits at most
    void complete_file_locked(uint64_t end_time);
    void fold_counters_locked(Stats& totals);
    bool ensure_cursor_room(uint32_t count);

    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    DataFile* file_ = nullptr;
    uint32_t log_capacity_ = kMaxLogCapacity;
    ThreadLog* logs_ = nullptr;
    uint32_t log_count_ = 0;
    Cursor* cursors_ = nullptr;
    uint32_t cursor_capacity_ = 0;

    bool direct_allowed_ = false;  // the kernel has the barrier, and the run is not over
    ThreadLog* direct_owner_ = nullptr;

    Stream stream_;
    Stats retired_ = {};  // counters of threads that have exited
};

}  // namespace memusage
