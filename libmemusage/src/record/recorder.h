// SPDX-License-Identifier: MIT
// Turns the threads' event logs into one event stream: merged in time order, the
// global heap rebuilt from the per-event changes, peaks taken, and (with a data
// file) written as glibc's records. Threads only ever meet here, under one lock
// taken once per full log, never per event; a thread alone skips even its log.
// The facade the collector calls: the hot path's recording is here, inline; the
// parts hold the rest (the stream, the logs' life, their merge, the data file, the
// event recording, the per-thread table) and the calls that span parts join them.
#pragma once

#include <atomic>
#include <cstdint>

#include "memusage/stats.h"
#include "memusage/summary.h"
#include "platform/clock.h"
#include "record/block_description.h"
#include "record/data_file.h"
#include "record/data_file_output.h"
#include "record/direct_recording.h"
#include "record/event_recording.h"
#include "record/event_stream.h"
#include "record/events_file.h"
#include "record/log_merge.h"
#include "record/recorder_lock.h"
#include "record/thread_log.h"
#include "record/thread_logs.h"
#include "record/thread_table.h"
#include "sites/site_accounts.h"

namespace memusage {

class Recorder {
  public:
    static constexpr uint32_t kMaxLogCapacity = ThreadLogs::kMaxLogCapacity;

    constexpr Recorder()
        : merge_(stream_, output_, recording_), logs_(lock_, direct_, merge_, recording_, table_) {}
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // `file` may be null: the events then only feed the peaks. `buffer_records` is
    // MEMUSAGE_BUFFER_SIZE: how many records are collected before each write.
    bool init(DataFile* file, uint32_t buffer_records);

    // A log for the calling thread, zeroed; null if the kernel refuses memory or the run
    // is ending. `counting_slot`: where the thread keeps it between calls (ThreadLog).
    ThreadLog* attach_thread(ThreadLog* const* counting_slot = nullptr) {
        return logs_.attach_thread(counting_slot);
    }
    // The thread makes no more calls: its events are merged and its counters kept.
    void detach_thread(ThreadLog* log) { logs_.detach_thread(log); }
    // The thread's last thread-specific destructor has run. It still makes calls (glibc's
    // own teardown frees memory after it), so the log stays its own, and is taken back as
    // a detached one once the kernel no longer knows the thread: memory stays flat
    // however many threads come and go, and every call is counted.
    void end_thread(ThreadLog* log) { logs_.end_thread(log); }

    // A call that interrupted one of the thread's own (made by a signal handler): the
    // thread's nested log when the call can be counted without waiting for anything the
    // interrupted call may hold, else null.
    ThreadLog* begin_nested(ThreadLog& own) { return logs_.begin_nested(own); }

    // Allocation sites: the stream keeps their figures from now on. Before any thread records.
    void keep_site_figures(SiteAccounts* accounts) {
        stream_.sites = accounts;
        if (accounts != nullptr) new_blocks_need_more_ = true;
    }
    // The event recording: every heap block event of the stream goes to `file` too, in the
    // stream's order, and a thread recording alone stamps its events. Before any thread
    // records (the logs are made with room for their events' blocks).
    void record_events(EventsFile* file) {
        recording_.start(file);
        stamp_direct_ = true;
        new_blocks_need_more_ = true;
        logs_.make_with_blocks();
    }
    // A new block takes more than its event: its site's (allocation sites) or its address
    // (the event recording). One test for both on the hot path, where both are rare.
    bool new_blocks_need_more() const { return new_blocks_need_more_; }
    // The logs have room for their events' blocks (set once, before any thread records).
    bool logs_have_blocks() const { return logs_.have_blocks(); }

    // One event of the owner's thread: straight into the stream while it is the only
    // thread recording, else appended to its log, merged when the log fills up. `site`
    // is the event's site word (site_accounts.h). Always inlined, as record_directly():
    // the inliner's budget grows with the size of the file it works on, and the files
    // of the parts are small. kOnlyCounting: the caller knows that neither allocation
    // sites nor the event recording are on (calls taking the short way).
    template <bool kOnlyCounting = false>
    __attribute__((always_inline)) void record(ThreadLog& log, int64_t heap_change, uint64_t stack,
                                               uint32_t site = 0) {
        // record_directly() reads the flag: a first test here would spare a thread that
        // logs a little work, and add a test to the thread alone, the common case.
        if (__builtin_expect(
                record_directly<kOnlyCounting>(log, heap_change, stack, site, nullptr, nullptr), 1))
            return;
        uint32_t n = log.published.load(std::memory_order_relaxed);
        log.events[n] = Event{ordered_cycle_counter(), heap_change, saturated(stack), site};
        if (__builtin_expect(!kOnlyCounting && logs_.have_blocks(), 0))
            log.blocks()[n] = BlockChange{};
        log.published.store(n + 1, std::memory_order_release);
        log.recording.store(false, std::memory_order_release);
        if (__builtin_expect(n + 1 == log.capacity, 0)) merge_full_log(log);
    }
    // The same with the event recording on (logs_have_blocks()): `block` is what the event
    // did to which heap block. Out of line, so that the recording weighs nothing on the
    // calls when it is off.
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
    // The live figures (publish/publisher.h): the same snapshot, the current heap, and each
    // running thread's own counters through `visit`. `own`: the calling thread's log, when
    // it copies from inside one of its calls (null: the publisher's thread, which records
    // nothing). Without `wait`, nothing is read when another thread holds the lock (it is
    // merging: the next copy will do). False, with nothing read, once the run is ending.
    struct RunningThread {
        pid_t tid;
        uint64_t calls, allocated, freed;  // freed: its frees' bytes and its shrinking resizes'
    };
    // `merged`, if given, is called once more, with the lock held and the stream merged:
    // the time to read the figures the stream keeps by site (sites::largest_held_now).
    using RunningThreadVisitor = void (*)(void* context, const RunningThread& thread);
    using MergedVisitor = void (*)(void* context);
    bool live_snapshot(ThreadLog* own, bool wait, Stats& totals, uint64_t& heap_now,
                       RunningThreadVisitor visit, void* context, MergedVisitor merged = nullptr);

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
    // alone again when its log fills goes back to direct recording, and so does one that
    // finds the other threads quiet; any other thread takes that away before it logs an
    // event (the test of active() below).
    // `signal_time`: the event is a profiling tick, taken at that time by a handler.
    // `block`: the event's heap block, for the event recording (null: none, or not kept).
    // False: the event goes into the log, and the caller publishes it, then clears
    // `recording` (open until then, so that a thread about to record directly beside this
    // one sees an event on its way: DirectRecording::share_locked).
    template <bool kOnlyCounting = false>
    __attribute__((always_inline)) bool record_directly(ThreadLog& log, int64_t heap_change,
                                                        uint64_t stack, uint32_t site,
                                                        const uint64_t* signal_time,
                                                        const BlockChange* block) {
        log.recording.store(true, std::memory_order_relaxed);
        // The barrier another thread runs orders the store above before the load below.
        std::atomic_signal_fence(std::memory_order_seq_cst);
        bool direct = log.records_directly.load(std::memory_order_relaxed);
        if (direct) {
            // With only counting on, a time is needed only for the data file, whose
            // presence add() tests anyway (stamp_direct_ is set with it).
            uint64_t time = signal_time != nullptr            ? *signal_time
                            : !kOnlyCounting && stamp_direct_ ? cycle_counter()
                                                              : 0;
            // Before the stream, as in the merge (emit_run).
            if (block != nullptr) {
                describe_made_block(log, *block, time);
                if (recording_.file() != nullptr)
                    recording_.file()->add(log.serial + 1, static_cast<uint64_t>(log.owner_thread),
                                           time, site, *block);
            }
            if (__builtin_expect(
                    stream_.add<kOnlyCounting>(heap_change, saturated(stack), time, site), 0))
                write_output();
            log.recording.store(false, std::memory_order_release);
            return true;
        }
        // A profiling tick's handler must not wait: record_from_signal sees to it.
        if (__builtin_expect(signal_time == nullptr && direct_.active(), 0))
            stop_others_recording_directly(log);
        return false;
    }
    // A described block the event made (record/block_description.h) takes the event's own
    // time, as its record will have it, and its owner as the recording's thread records name
    // it (the merge's serial: a nested log's events are its thread's); a resize's keeps the
    // birth and owner of the block it ended.
    static void describe_made_block(const ThreadLog& log, const BlockChange& block, uint64_t time) {
        if (!block.makes_described) return;
        BlockDescription& description = *description_of(block.address);
        const uint64_t shifted = time >> events_format::kTimeShift;
        description.start = shifted;
        if (block.old_address != 0 && block.ended.described) {
            description.born = block.ended.born;
            description.owner = block.ended.owner;
        } else {
            description.born = shifted;
            description.owner = (log.parent != nullptr ? log.parent->serial : log.serial) + 1;
        }
    }
    // The hot path's two calls out, each with the recorder as its only argument: kept
    // that small so that the inlined recording has nothing to keep across them.
    void merge_full_log(ThreadLog& log);
    void write_output();
    // Another thread records directly: that ends before this thread logs an event.
    __attribute__((noinline, cold)) void stop_others_recording_directly(ThreadLog& log);
    static uint32_t saturated(uint64_t stack) {
        return stack < UINT32_MAX ? static_cast<uint32_t>(stack) : UINT32_MAX;
    }
    // The run is over: every event merged, and the files get their last records.
    void complete_file_locked(uint64_t end_time);
    void fold_counters_locked(Stats& totals);
    void bring_stream_up_to_date_locked(ThreadLog* own);

    // The parts, in the order they depend on each other.
    RecorderLock lock_;
    EventStream stream_;
    DataFileOutput output_;
    EventRecording recording_;
    DirectRecording direct_;
    ThreadTable table_;
    LogMerge merge_;
    ThreadLogs logs_;
    bool new_blocks_need_more_ = false;  // allocation sites or the event recording are on
    bool stamp_direct_ = false;  // a thread recording directly stamps its events (a file is on)
};

}  // namespace memusage
