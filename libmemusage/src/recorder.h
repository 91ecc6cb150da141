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
#include "events_file.h"
#include "memusage/record.h"
#include "memusage/stats.h"
#include "memusage/summary.h"
#include "site_accounts.h"
#include "thread_log.h"

namespace memusage {

// The merged stream's running state: the global heap, the peaks and the records
// waiting to be written.
struct Stream {
    int64_t heap = 0;
    uint64_t last_time = 0;
    // heap_peak is the peak since the program last reset it (the in-process API);
    // run_peak() is the whole run's. Keeping the earlier phases' peak aside costs the
    // events nothing.
    uint64_t heap_peak = 0, stack_peak = 0, total_peak = 0;
    uint64_t earlier_phases_peak = 0;

    uint64_t run_peak() const {
        return heap_peak > earlier_phases_peak ? heap_peak : earlier_phases_peak;
    }
    void start_phase() {
        earlier_phases_peak = run_peak();
        heap_peak = heap > 0 ? static_cast<uint64_t>(heap) : 0;
    }
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
        // Counted only once written: a signal handler that ends the run in between
        // finds no half-written record.
        Record& record = output[output_used];
        record.heap = current;
        record.stack = stack;
        record.set_time(last_time);
        return ++output_used == output_capacity;
    }
};

class Recorder {
  public:
    static constexpr uint32_t kMaxLogCapacity = 1024;

    // `file` may be null: the events then only feed the peaks. `buffer_records` is
    // MEMUSAGE_BUFFER_SIZE: how many records are collected before each write.
    bool init(DataFile* file, uint32_t buffer_records);

    // A log for the calling thread, zeroed; null if the kernel refuses memory or the run
    // is ending. `counting_slot`: where the thread keeps it between calls (ThreadLog).
    ThreadLog* attach_thread(ThreadLog* const* counting_slot = nullptr);
    // The thread makes no more calls: its events are merged and its counters kept.
    void detach_thread(ThreadLog* log);
    // The thread's last thread-specific destructor has run. It still makes calls (glibc's
    // own teardown frees memory after it), so the log stays its own, and is taken back as
    // a detached one once the kernel no longer knows the thread: memory stays flat
    // however many threads come and go, and every call is counted.
    void end_thread(ThreadLog* log);

    // A call that interrupted one of the thread's own (made by a signal handler): the
    // thread's nested log when the call can be counted without waiting for anything the
    // interrupted call may hold, else null.
    ThreadLog* begin_nested(ThreadLog& own);

    // Allocation sites: the stream keeps their figures from now on. Before any thread records.
    void keep_site_figures(SiteAccounts* accounts) { stream_.sites = accounts; }
    // The event recording: every heap block event of the stream goes to `file` too, in the
    // stream's order, and a thread recording alone stamps its events. Before any thread
    // records (the logs are made with room for their events' blocks).
    void record_events(EventsFile* file) {
        events_ = file;
        stamp_direct_ = true;
        logs_have_blocks_ = true;
    }
    // The logs have room for their events' blocks (set once, before any thread records).
    bool logs_have_blocks() const { return logs_have_blocks_; }

    // One event of the owner's thread: straight into the stream while it is the only
    // thread recording, else appended to its log, merged when the log fills up. `site`
    // is the event's site word (site_accounts.h).
    void record(ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site = 0) {
        if (log.records_directly.load(std::memory_order_relaxed) &&
            record_directly(log, heap_change, stack, site, nullptr, nullptr))
            return;
        uint32_t n = log.published.load(std::memory_order_relaxed);
        log.events[n] = Event{ordered_cycle_counter(), heap_change, saturated(stack), site};
        if (__builtin_expect(logs_have_blocks_, 0)) log.blocks()[n] = BlockChange{};
        log.published.store(n + 1, std::memory_order_release);
        if (__builtin_expect(n + 1 == log.capacity, 0)) merge_full_log(log);
    }
    // The same with the event recording on (logs_have_blocks()): `block` is what the event
    // did to which heap block. Out of line, so that the recording costs the calls nothing
    // when it is off (inlined, its registers would be saved and restored on every call).
    __attribute__((noinline)) void record_with_block(ThreadLog& log, int64_t heap_change,
                                                     uint64_t stack, uint32_t site,
                                                     const BlockChange& block);
    // The same from a signal handler, which must never wait: the event is dropped
    // when the log would need merging while another thread merges.
    void record_from_signal(ThreadLog& log, uint64_t time, uint64_t stack);

    // At exit: stops every thread's counting (a call in progress is let finish), merges
    // everything, writes the remaining records and the final header (its end time no
    // earlier than the last record's), closes the file, and returns the whole process's
    // counters and peaks: the summary and the file describe the same events. `finishing`
    // is the calling thread's log (null if it has none or is unknown): when that thread
    // is the one recording directly, ending that needs no process-wide barrier, a system
    // call that a program's system-call filter might punish. It never waits for the lock
    // if the calling thread may hold it (exit() from a signal handler that interrupted a
    // merge): the file is then left as a killed run leaves it, and the counters still come.
    // True when every event was merged (and the site figures are complete).
    bool finish(Stats& totals, uint64_t end_time, ThreadLog* finishing = nullptr);
    // After a fatal signal: the same for the file only, if the lock can be had soon.
    // True when every event was merged (and the site figures are complete).
    bool finish_file_after_crash(uint64_t end_time, ThreadLog* crashing = nullptr);

    // From now on every write of the record buffer also writes the header, peaks as of
    // the records written, so that a death no handler sees leaves a complete file. With
    // `write_now`, the stream is brought up to date and written at once (never waiting
    // for a lock this thread may hold).
    void keep_file_complete(ThreadLog* own, bool write_now);

    // The in-process API's questions, answered from everything published so far: `own`
    // is the asking thread's log (null if it has none). Each takes the lock.
    struct HeapFigures {
        uint64_t current, peak, phase_peak, stack_peak;
    };
    HeapFigures figures(ThreadLog* own);
    uint64_t current_heap(ThreadLog* own) { return figures(own).current; }
    void reset_phase_peak(ThreadLog* own);
    // The whole process's counters and peaks as they stand: exact for the asking thread
    // and for threads that ended, a moment's reading for threads still running.
    void snapshot(Stats& totals, ThreadLog* own);

    // The per-thread table: from now on, every thread's row is kept when it ends.
    void keep_thread_rows();
    // The rows of the threads that ended and of those still running, in the order
    // they began; valid until the next call. Call after finish().
    const ThreadRow* thread_rows(size_t& count);

    // fork(): the child keeps counting, but the parent's file is not its to write.
    // `own` is the forking thread's log (null if it has none). Nothing is prepared in
    // the parent: holding the lock across fork() would deadlock against stdio (another
    // thread waits for it under a FILE lock that fork() itself waits for), and against
    // fork() called by a signal handler that interrupted this thread in the recorder.
    // The child therefore starts from whatever state the fork caught; this takes no
    // lock, never waits, and is safe in a signal handler.
    void after_fork_in_child(ThreadLog* own);

  private:
    // Direct recording. A thread alone needs neither its log nor the lock nor a fenced
    // stamp (which costs as much as the program's own malloc here): it adds its events
    // to the stream itself, stamped only when there is a file (the data file or the event
    // recording). The first other thread to arrive takes that right away, behind a
    // process-wide barrier, and from then on every thread logs, stamped with a fenced
    // reading of the cycle counter so that the processor cannot read it before it has
    // seen what another thread handed over (a block to free, a flag saying a block was
    // freed): a consequence is always stamped after its cause. A thread that finds itself
    // alone again when its log fills goes back to direct recording.
    // `signal_time`: the event is a profiling tick, taken at that time by a handler.
    // `block`: the event's heap block, for the event recording (null: none, or not kept).
    bool record_directly(ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site,
                         const uint64_t* signal_time, const BlockChange* block) {
        log.recording.store(true, std::memory_order_relaxed);
        // The barrier another thread runs orders the store above before the load below.
        std::atomic_signal_fence(std::memory_order_seq_cst);
        bool direct = log.records_directly.load(std::memory_order_relaxed);
        if (direct) {
            uint64_t time = signal_time != nullptr ? *signal_time
                            : stamp_direct_        ? cycle_counter()
                                                   : 0;
            // Before the stream, as in the merge (emit_run).
            if (block != nullptr && events_ != nullptr)
                events_->add(log.serial + 1, static_cast<uint64_t>(log.owner_thread), time, site,
                             *block);
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
    // No other thread has a log in use (the thread's own nested log does not count).
    bool alone_locked(const ThreadLog& log) const;
    // Ends direct recording; false if the owner is still recording after `max_waits`.
    bool revoke_direct_locked(ThreadLog* caller, int max_waits = -1);

    struct Cursor {
        const Event* next;
        const Event* end;
        ThreadLog* log;
        bool take_all;  // the merging thread's own events: all of them, whatever their stamp
    };

    // The lock, noting (per thread) that this thread wants or holds it: a signal handler
    // running on this thread must not wait for it then.
    void lock();
    bool try_lock();
    void unlock();
    // The lock, unless this thread may hold it already, which is false.
    bool lock_unless_held_here();

    ThreadLog* take_free_log_locked(bool may_merge);
    ThreadLog* attach_nested(ThreadLog& own, bool may_wait);
    void reset_log(ThreadLog& log, ThreadLog* parent);
    // Takes back the logs of threads that are gone: those whose destructor has run, or
    // with `every_thread`, all of them.
    void reclaim_locked(bool every_thread);
    void retire_locked(ThreadLog& log);
    void wait_for_calls_in_progress(const ThreadLog* finishing);

    void merge_full_log(ThreadLog& log);
    void empty_full_log_locked(ThreadLog& log);
    void merge_locked(ThreadLog* own, uint64_t cutoff);
    const Event* emit_run(ThreadLog& log, const Event* event, const Event* end, uint64_t bound);
    // The loop itself: inlined into emit_run without the recording, so that the merge's
    // common path costs what it did; out of line with it (emit_run_recording).
    template <bool kRecordingEvents>
    __attribute__((always_inline)) inline const Event* emit_run_as(ThreadLog& log,
                                                                   const Event* event,
                                                                   const Event* end,
                                                                   uint64_t bound);
    __attribute__((noinline)) const Event* emit_run_recording(ThreadLog& log, const Event* event,
                                                              const Event* end, uint64_t bound);
    void record_thread_name_locked(ThreadLog& log);
    void write_output();
    static constexpr int kCrashWaits = 2000;  // yields a fatal signal's handler waits at most
    void complete_file_locked(uint64_t end_time);
    void fold_counters_locked(Stats& totals);
    bool ensure_cursor_room(uint32_t count);
    void bring_stream_up_to_date_locked(ThreadLog* own);
    void keep_row_locked(const ThreadLog& log);

    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    std::atomic<const void*> holder_{nullptr};  // which thread holds the lock (lock())
    DataFile* file_ = nullptr;
    uint32_t log_capacity_ = kMaxLogCapacity;
    ThreadLog* logs_ = nullptr;
    uint32_t log_count_ = 0;
    uint32_t ended_count_ = 0;         // logs in use whose thread may be gone (not the main thread)
    uint32_t next_full_reclaim_ = 64;  // log count at which every log's thread is looked for
    bool stopping_ = false;            // the run is ending: no new logs
    Cursor* cursors_ = nullptr;
    uint32_t cursor_capacity_ = 0;

    bool direct_allowed_ = false;  // the kernel has the barrier, and the run is not over
    ThreadLog* direct_owner_ = nullptr;

    Stream stream_;
    Stats retired_ = {};             // counters of threads that have exited
    EventsFile* events_ = nullptr;   // the event recording, when on (and this process's)
    bool stamp_direct_ = false;      // a thread recording directly stamps its events
    bool logs_have_blocks_ = false;  // record_events() was called: see ThreadLog::blocks()
    // keep_file_complete() was called; header_written_: the header describes the records
    // written so far (set under the lock, or by the thread recording directly).
    std::atomic<bool> complete_on_write_{false};
    bool header_written_ = false;

    // The per-thread table's rows (of threads that ended, then of all at the end).
    bool keep_rows_ = false;
    ThreadRow* rows_ = nullptr;
    size_t row_count_ = 0, row_capacity_ = 0;
    uint64_t next_serial_ = 0;
};

}  // namespace memusage
