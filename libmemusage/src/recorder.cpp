#include "recorder.h"

#include <sched.h>

#include <cstring>

#include "clock.h"
#include "pages.h"

namespace memusage {

bool Recorder::init(DataFile* file, uint32_t buffer_records) {
    if (buffer_records == 0) buffer_records = 1;
    log_capacity_ = buffer_records < kMaxLogCapacity ? buffer_records : kMaxLogCapacity;
    if (file != nullptr && file->is_open()) {
        output_ = static_cast<Record*>(allocate_pages(size_t{buffer_records} * sizeof(Record)));
        if (output_ == nullptr) return false;
        output_capacity_ = buffer_records;
        file_ = file;
    }
    stamping_.store(file_ == nullptr ? Stamping::none : Stamping::plain, std::memory_order_relaxed);
    return true;
}

ThreadLog* Recorder::attach_thread() {
    pthread_mutex_lock(&mutex_);
    ThreadLog* log = nullptr;
    for (ThreadLog* other = logs_; other != nullptr; other = other->next) {
        if (other->in_use)
            stamping_.store(Stamping::causal, std::memory_order_relaxed);
        else if (log == nullptr)
            log = other;
    }
    if (log == nullptr && ensure_cursor_room(log_count_ + 1)) {
        log = static_cast<ThreadLog*>(allocate_pages(ThreadLog::bytes_for(log_capacity_)));
        if (log != nullptr) {
            log->next = logs_;
            logs_ = log;
            ++log_count_;
        }
    }
    if (log != nullptr) {
        memset(&log->stats, 0, sizeof(log->stats));
        log->stack_start = 0;
        log->published.store(0, std::memory_order_relaxed);
        log->consumed = 0;
        log->capacity = log_capacity_;
        log->in_use = true;
    }
    pthread_mutex_unlock(&mutex_);
    return log;
}

void Recorder::detach_thread(ThreadLog* log) {
    pthread_mutex_lock(&mutex_);
    merge_locked(log, cycle_counter_fenced());
    retired_.add_counts(log->stats);
    log->in_use = false;
    pthread_mutex_unlock(&mutex_);
}

// The owner's log is full: everything in it goes into the stream, and it starts over.
void Recorder::empty_full_log_locked(ThreadLog& log) {
    merge_locked(&log, cycle_counter_fenced());
    log.consumed = 0;
    log.published.store(0, std::memory_order_relaxed);
}

void Recorder::merge_full_log(ThreadLog& log) {
    pthread_mutex_lock(&mutex_);
    empty_full_log_locked(log);
    pthread_mutex_unlock(&mutex_);
}

void Recorder::record_from_signal(ThreadLog& log, uint64_t time, uint64_t stack) {
    uint32_t n = log.published.load(std::memory_order_relaxed);
    // Filling the log means merging it, which needs the lock: only if it is free.
    bool fills = n + 1 == log.capacity;
    if (fills && pthread_mutex_trylock(&mutex_) != 0) return;
    log.events[n] = Event{time, 0, stack};
    log.published.store(n + 1, std::memory_order_release);
    if (!fills) return;
    empty_full_log_locked(log);
    pthread_mutex_unlock(&mutex_);
}

bool Recorder::ensure_cursor_room(uint32_t count) {
    if (count <= cursor_capacity_) return true;
    uint32_t capacity = cursor_capacity_ == 0 ? 64 : cursor_capacity_ * 2;
    while (capacity < count) capacity *= 2;
    auto* cursors = static_cast<Cursor*>(allocate_pages(capacity * sizeof(Cursor)));
    if (cursors == nullptr) return false;
    if (cursors_ != nullptr) free_pages(cursors_, cursor_capacity_ * sizeof(Cursor));
    cursors_ = cursors;
    cursor_capacity_ = capacity;
    return true;
}

// A k-way merge over the threads' unmerged events, smallest stamp first. Events of
// other threads stamped at or after `cutoff` stay for a later merge: a thread may
// still be publishing an earlier one. A malloc is published before its block can reach
// another thread, and that thread's free is stamped after a fence, so the free carries
// the later stamp and, once merged, its malloc is merged too: a free is never merged
// ahead of its allocation.
void Recorder::merge_locked(ThreadLog* own, uint64_t cutoff) {
    uint32_t count = 0;
    for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
        if (!log->in_use) continue;
        uint32_t end = log->published.load(std::memory_order_acquire);
        if (log->consumed >= end) continue;
        cursors_[count++] = Cursor{log->events + log->consumed, log->events + end, log, log == own};
    }
    auto head = [&](uint32_t i) { return i < count ? cursors_[i].next->time : UINT64_MAX; };
    auto sift_down = [&](uint32_t i) {
        for (;;) {
            uint32_t smallest = i, left = 2 * i + 1, right = left + 1;
            if (head(left) < head(smallest)) smallest = left;
            if (head(right) < head(smallest)) smallest = right;
            if (smallest == i) return;
            Cursor swapped = cursors_[i];
            cursors_[i] = cursors_[smallest];
            cursors_[smallest] = swapped;
            i = smallest;
        }
    };
    for (uint32_t i = count / 2; i-- > 0;) sift_down(i);
    while (count > 0) {
        Cursor& top = cursors_[0];
        uint64_t bound = top.take_all ? UINT64_MAX : cutoff;
        if (top.next->time < bound) {
            // Everything up to the next thread's first event goes in one run.
            uint64_t next_head = head(1) < head(2) ? head(1) : head(2);
            top.next = emit_run(top.next, top.end, next_head < bound ? next_head : bound);
            if (top.next != top.end) {
                sift_down(0);
                continue;
            }
        }
        top.log->consumed = static_cast<uint32_t>(top.next - top.log->events);
        cursors_[0] = cursors_[--count];
        sift_down(0);
    }
}

// The hot loop of the merge: the running heap, the peaks and the output position
// stay in registers.
const Event* Recorder::emit_run(const Event* event, const Event* end, uint64_t bound) {
    int64_t heap = heap_;
    uint64_t last_time = last_time_;
    uint64_t heap_peak = heap_peak_, stack_peak = stack_peak_, total_peak = total_peak_;
    Record* output = output_;
    uint32_t used = output_used_;
    do {
        heap += event->heap_change;
        uint64_t current = heap > 0 ? static_cast<uint64_t>(heap) : 0;
        heap_peak = current > heap_peak ? current : heap_peak;
        stack_peak = event->stack > stack_peak ? event->stack : stack_peak;
        total_peak = current + event->stack > total_peak ? current + event->stack : total_peak;
        if (output != nullptr) {
            // Stamps of different cores can disagree by a few cycles; the file stays in order.
            last_time = event->time > last_time ? event->time : last_time;
            Record& record = output[used++];
            record.heap = current;
            record.stack = event->stack;
            record.set_time(last_time);
            if (__builtin_expect(used == output_capacity_, 0)) {
                output_used_ = used;
                write_output();
                used = 0;
            }
        }
        ++event;
    } while (event != end && event->time < bound);
    output_used_ = used;
    heap_ = heap;
    last_time_ = last_time;
    heap_peak_ = heap_peak;
    stack_peak_ = stack_peak;
    total_peak_ = total_peak;
    return event;
}

void Recorder::write_output() {
    if (file_ != nullptr) file_->append(output_, output_used_);
    output_used_ = 0;
}

void Recorder::fold_counters_locked(Stats& totals) {
    totals.add_counts(retired_);
    for (ThreadLog* log = logs_; log != nullptr; log = log->next)
        if (log->in_use) totals.add_counts(log->stats);
    totals.heap_peak = heap_peak_;
    totals.stack_peak = stack_peak_;
    totals.total_peak = total_peak_;
}

void Recorder::complete_file_locked(uint64_t end_time) {
    merge_locked(nullptr, UINT64_MAX);
    if (file_ == nullptr) return;
    write_output();
    file_->write_header(total_peak_, heap_peak_, stack_peak_, end_time);
    file_->close();
    file_ = nullptr;
}

void Recorder::finish(Stats& totals, uint64_t end_time) {
    pthread_mutex_lock(&mutex_);
    complete_file_locked(end_time);
    fold_counters_locked(totals);
    pthread_mutex_unlock(&mutex_);
}

void Recorder::finish_file_after_crash(uint64_t end_time) {
    // The lock may belong to a thread that is writing right now (wait for it a little)
    // or to the crashing thread itself (give up: readers repair a zero header).
    for (int attempt = 0; pthread_mutex_trylock(&mutex_) != 0; ++attempt) {
        if (attempt == 2000) return;
        sched_yield();
    }
    complete_file_locked(end_time);
    pthread_mutex_unlock(&mutex_);
}

void Recorder::after_fork_in_child(ThreadLog* own) {
    // The parent writes its pending events to its file; the child only needs them for
    // its own heap and peaks.
    if (file_ != nullptr) file_->close();
    file_ = nullptr;
    merge_locked(nullptr, UINT64_MAX);
    output_used_ = 0;
    for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
        log->consumed = 0;
        log->published.store(0, std::memory_order_relaxed);
        if (log->in_use && log != own) {  // threads that do not exist in the child
            retired_.add_counts(log->stats);
            log->in_use = false;
        }
    }
    pthread_mutex_init(&mutex_, nullptr);
}

}  // namespace memusage
