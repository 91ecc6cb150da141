// SPDX-License-Identifier: MIT
#include "record/recorder.h"

#include <sched.h>

#include "platform/clock.h"

namespace memusage {

bool Recorder::init(DataFile* file, uint32_t buffer_records) {
    if (buffer_records == 0) buffer_records = 1;
    logs_.init(buffer_records);
    if (file != nullptr && file->is_open()) {
        if (!output_.open(file, buffer_records, stream_)) return false;
        stamp_direct_ = true;
    }
    direct_.init();
    return true;
}

void Recorder::merge_full_log(ThreadLog& log) { logs_.merge_full_log(log); }

void Recorder::write_output() { output_.write(stream_); }

// A nested log is a signal handler's, which must not wait here: begin_nested did this for
// it.
void Recorder::stop_others_recording_directly(ThreadLog& log) {
    if (log.parent != nullptr) return;
    lock_.lock();
    direct_.revoke_locked(&log);
    lock_.unlock();
}

void Recorder::record_with_block(ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site,
                                 const BlockChange& block) {
    if (record_directly(log, heap_change, stack, site, nullptr, &block)) return;
    uint32_t n = log.published.load(std::memory_order_relaxed);
    const uint64_t time = ordered_cycle_counter();
    describe_made_block(log, block, time);
    log.events[n] = Event{time, heap_change, saturated(stack), site};
    log.blocks()[n] = block;
    log.published.store(n + 1, std::memory_order_release);
    log.recording.store(false, std::memory_order_release);
    if (__builtin_expect(n + 1 == log.capacity, 0)) merge_full_log(log);
}

void Recorder::record_from_signal(ThreadLog& log, uint64_t time, uint64_t stack) {
    if (log.records_directly.load(std::memory_order_relaxed)) {
        if (record_directly(log, 0, stack, 0, &time, nullptr)) return;
        log.recording.store(false, std::memory_order_release);  // taken away meanwhile
    }
    // Another thread recording directly stops first, unless that means waiting for the
    // lock (this thread may hold it): the tick is then dropped, as below.
    if (direct_.active() && log.parent == nullptr) {
        if (!lock_.try_lock()) return;
        direct_.revoke_locked(&log);
        lock_.unlock();
    }
    uint32_t n = log.published.load(std::memory_order_relaxed);
    // Filling the log means merging it, which needs the lock: only if it is free.
    bool fills = n + 1 == log.capacity;
    if (fills && !lock_.try_lock()) return;
    log.events[n] = Event{time, 0, saturated(stack), 0};
    if (logs_.have_blocks()) log.blocks()[n] = BlockChange{};
    log.published.store(n + 1, std::memory_order_release);
    if (!fills) return;
    logs_.empty_full_log_locked(log);
    lock_.unlock();
}

void Recorder::fold_counters_locked(Stats& totals) {
    logs_.fold_counts_locked(totals);
    totals.heap_peak = stream_.run_peak();
    totals.stack_peak = stream_.stack_peak;
    totals.total_peak = stream_.total_peak;
}

// The run is over: nobody records directly any more, and the file gets its last
// records and its header.
void Recorder::complete_file_locked(uint64_t end_time) {
    direct_.end();
    recording_.settle_interrupted_add();
    merge_.merge_locked(logs_.first(), nullptr, UINT64_MAX);
    if (stream_.sites != nullptr)
        stream_.sites->on_end(stream_.heap > 0 ? static_cast<uint64_t>(stream_.heap) : 0);
    stream_.sites = nullptr;  // complete: what threads still do after this changes no figure
    // The data file ends where the recording does, at one reading of the counter: readers
    // tie the two clocks at the ends (a board's data file counts microseconds), and the
    // last merge and write between two readings took over a millisecond under qemu.
    const uint64_t recording_end = recording_.finish_locked(logs_.first());
    output_.complete(stream_, recording_end != 0 ? recording_end : end_time);
}

bool Recorder::finish(Stats& totals, uint64_t end_time, ThreadLog* finishing) {
    // exit() from a signal handler that stopped this thread halfway through recording
    // directly: that event is never completed, and no thread may wait for it.
    if (finishing != nullptr) finishing->recording.store(false, std::memory_order_release);
    bool locked = lock_.lock_unless_held_here();
    // The same stopped inside the lock, writing the buffer: that work never resumes, so
    // the lock is this thread's to use, and the merge has caught up with the write.
    if (!locked && DataFileOutput::writing_here() && lock_.held_here()) locked = true;
    bool others_counting = logs_.stop(finishing);
    if (!locked) {
        // This thread holds the lock, stopped halfway through a merge: the file stays as
        // a killed run leaves it (every full buffer; readers repair the header), and the
        // counters are whole.
        fold_counters_locked(totals);
        return false;
    }
    if (others_counting) {
        lock_.unlock();
        logs_.wait_for_calls_in_progress(finishing);
        lock_.lock();
    }
    direct_.revoke_locked(finishing, kCrashWaits);
    complete_file_locked(end_time);
    fold_counters_locked(totals);
    lock_.unlock();
    return true;
}

bool Recorder::finish_file_after_crash(uint64_t end_time, ThreadLog* crashing) {
    // The lock may belong to a thread that is writing right now (wait for it a little)
    // or to the crashing thread itself (give up: readers repair a zero header).
    for (int attempt = 0; !lock_.try_lock_unmarked(); ++attempt) {
        if (attempt == kCrashWaits) return false;
        sched_yield();
    }
    // The thread recording directly may be the crashing one, stopped halfway.
    bool completed = direct_.revoke_locked(crashing, kCrashWaits);
    if (completed) complete_file_locked(end_time);
    lock_.unlock_unmarked();
    return completed;
}

void Recorder::keep_file_complete(ThreadLog* own, bool write_now) {
    output_.keep_complete();
    if (!write_now || !lock_.lock_unless_held_here()) return;
    if (output_.is_open() && !logs_.stopping()) {
        bring_stream_up_to_date_locked(own);
        output_.write_if_new(stream_);
    }
    lock_.unlock();
}

// Another thread recording directly would be writing the stream while we read it:
// that ends (it resumes once its log fills and it is alone again).
void Recorder::bring_stream_up_to_date_locked(ThreadLog* own) {
    direct_.revoke_others_locked(own);
    merge_.merge_locked(logs_.first(), own, cycle_counter_fenced());
}

Recorder::HeapFigures Recorder::figures(ThreadLog* own) {
    lock_.lock();
    bring_stream_up_to_date_locked(own);
    HeapFigures figures = {stream_.heap > 0 ? static_cast<uint64_t>(stream_.heap) : 0,
                           stream_.run_peak(), stream_.heap_peak, stream_.stack_peak};
    lock_.unlock();
    return figures;
}

void Recorder::reset_phase_peak(ThreadLog* own) {
    lock_.lock();
    bring_stream_up_to_date_locked(own);
    stream_.start_phase();
    lock_.unlock();
}

// Other threads' counters are written by their owners without synchronisation; each
// is an aligned 64-bit word, which x86-64 loads whole, so a reading is some value the
// counter had during the call. Deliberately racy, and so kept from ThreadSanitizer.
__attribute__((no_sanitize("thread"))) void Recorder::snapshot(Stats& totals, ThreadLog* own) {
    lock_.lock();
    bring_stream_up_to_date_locked(own);
    fold_counters_locked(totals);
    lock_.unlock();
}

__attribute__((no_sanitize("thread"))) bool Recorder::live_snapshot(
    ThreadLog* own, bool wait, Stats& totals, uint64_t& heap_now, RunningThreadVisitor visit,
    void* context, MergedVisitor merged) {
    if (wait)
        lock_.lock();
    else if (!lock_.try_lock())
        return false;
    if (logs_.stopping()) {
        lock_.unlock();
        return false;
    }
    bring_stream_up_to_date_locked(own);
    fold_counters_locked(totals);
    heap_now = stream_.heap > 0 ? static_cast<uint64_t>(stream_.heap) : 0;
    for (const ThreadLog* log = logs_.first(); log != nullptr; log = log->next) {
        if (!log->in_use || log->parent != nullptr || log->ended) continue;
        RunningThread thread = {log->owner_thread, 0, 0, 0};
        // A signal handler's calls, counted in the thread's nested log, are the thread's too.
        for (const ThreadLog* part : {log, static_cast<const ThreadLog*>(log->nested)}) {
            if (part == nullptr) continue;
            for (uint64_t calls : part->stats.calls) thread.calls += calls;
            thread.allocated += part->stats.heap_total();
            thread.freed += part->stats.bytes_of(Call::free) + part->shrunk_bytes;
        }
        visit(context, thread);
    }
    if (merged != nullptr) merged(context);
    lock_.unlock();
    return true;
}

void Recorder::keep_thread_rows() {
    lock_.lock();
    table_.keep_rows_locked();
    lock_.unlock();
}

const ThreadRow* Recorder::thread_rows(size_t& count) {
    lock_.lock();
    const ThreadRow* rows = table_.rows_locked(logs_.first(), count);
    lock_.unlock();
    return rows;
}

void Recorder::after_fork_in_child(ThreadLog* own) {
    // The parent writes its pending events to its file; the child only needs them for
    // its own heap and peaks. The file goes first, whatever else the fork interrupted:
    // nothing of the child's may reach it.
    DataFile* file = output_.leave_in_child(stream_);
    EventsFile* events = recording_.leave_in_child();
    stamp_direct_ = false;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (file != nullptr) file->close();
    if (events != nullptr) events->close();
    direct_.forget_owner_in_child(own);
    // A held lock means that another thread was inside the recorder at the fork (it
    // never finishes here), or that this one was and a signal handler forked: its work
    // resumes when the handler returns. Either way the logs stay as they are, merged
    // later like any others; the lock is simply free again.
    if (lock_.try_lock_unmarked()) {
        merge_.merge_locked(logs_.first(), nullptr, UINT64_MAX);
        logs_.forget_other_threads_in_child(own);
    }
    lock_.reset_in_child();
}

}  // namespace memusage
