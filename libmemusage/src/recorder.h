// Turns the threads' event logs into one event stream: merged in time order, the
// global heap rebuilt from the per-event changes, peaks taken, and (with a data
// file) written as glibc's records. Threads only ever meet here, under one lock
// taken once per full log, never per event.
#pragma once

#include <pthread.h>

#include <cstdint>

#include "clock.h"
#include "data_file.h"
#include "memusage/record.h"
#include "memusage/stats.h"
#include "thread_log.h"

namespace memusage {

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

    // Appends one event to the owner's log, merging when the log fills up.
    void record(ThreadLog& log, int64_t heap_change, uint64_t stack) {
        uint32_t n = log.published.load(std::memory_order_relaxed);
        log.events[n] = Event{stamp(), heap_change, stack};
        log.published.store(n + 1, std::memory_order_release);
        if (__builtin_expect(n + 1 == log.capacity, 0)) merge_full_log(log);
    }
    // The same from a signal handler, which must never wait: the event is dropped
    // when the log would need merging while another thread merges.
    void record_from_signal(ThreadLog& log, uint64_t time, uint64_t stack);

    // At exit: merges everything, writes the remaining records and the final header,
    // closes the file, and returns the whole process's counters and peaks.
    void finish(Stats& totals, uint64_t end_time);
    // After a fatal signal: the same for the file only, if the lock can be had soon.
    void finish_file_after_crash(uint64_t end_time);

    // fork(): the child keeps counting, but the parent's file is not its to write.
    void before_fork() { pthread_mutex_lock(&mutex_); }
    void after_fork_in_parent() { pthread_mutex_unlock(&mutex_); }
    void after_fork_in_child(ThreadLog* own);

  private:
    // Reading the cycle counter is the dearest part of an event (10 ns here, 17 with
    // the fence). A single thread without a data file needs no stamps: its events keep
    // stamp 0. A single thread with a data file needs them only for the time axis.
    // Several threads need them fenced, so that the processor cannot read the counter
    // before it has seen what another thread handed over (a block to free, a flag saying
    // a block was freed): the consequence is then always stamped after its cause.
    enum class Stamping : uint8_t { none, plain, causal };
    uint64_t stamp() {
        switch (stamping_.load(std::memory_order_relaxed)) {
            case Stamping::none:
                return 0;
            case Stamping::plain:
                return cycle_counter();
            case Stamping::causal:
                break;
        }
        return ordered_cycle_counter();
    }

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
    void complete_file_locked(uint64_t end_time);
    void fold_counters_locked(Stats& totals);
    bool ensure_cursor_room(uint32_t count);

    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    std::atomic<Stamping> stamping_{Stamping::causal};
    DataFile* file_ = nullptr;
    uint32_t log_capacity_ = kMaxLogCapacity;
    ThreadLog* logs_ = nullptr;
    uint32_t log_count_ = 0;
    Cursor* cursors_ = nullptr;
    uint32_t cursor_capacity_ = 0;

    Record* output_ = nullptr;
    uint32_t output_capacity_ = 0;
    uint32_t output_used_ = 0;

    int64_t heap_ = 0;
    uint64_t last_time_ = 0;
    uint64_t heap_peak_ = 0, stack_peak_ = 0, total_peak_ = 0;
    Stats retired_ = {};  // counters of threads that have exited
};

}  // namespace memusage
