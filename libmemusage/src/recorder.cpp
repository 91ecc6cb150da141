#include "recorder.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "clock.h"
#include "counting_extras.h"
#include "pages.h"
#include "process_barrier.h"

namespace memusage {
namespace {

// How many of the recorder's locks this thread wants or holds, and its mark as holder.
__thread unsigned lock_wanted_here = 0;
__thread char this_thread;
// This thread is writing the record buffer: the merge it may be part of has caught up.
__thread bool writing_here = false;

// How long the end of the run waits for a call in progress, or for a lock this thread
// may hold; a thread stopped longer than this (by a signal handler that blocks, say)
// costs at most one call's worth of agreement between the summary and the file.
constexpr long kExitWaitNanoseconds = 200'000'000;

uint64_t monotonic_nanoseconds() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

void pause_briefly(int round) {
    if (round < 64) {
        sched_yield();
        return;
    }
    struct timespec pause = {0, 50'000};
    nanosleep(&pause, nullptr);
}

// A running thread's name, from the kernel (the thread may be busy elsewhere). With
// system calls only: this may run in a fatal signal's handler.
void read_thread_name(pid_t tid, char (&name)[16]) {
    char path[64] = "/proc/self/task/";
    size_t n = strlen(path);
    char digits[16];
    size_t count = 0;
    for (auto value = static_cast<uint32_t>(tid); count == 0 || value != 0; value /= 10)
        digits[count++] = static_cast<char>('0' + value % 10);
    while (count > 0) path[n++] = digits[--count];
    memcpy(path + n, "/comm", sizeof "/comm");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t length = read(fd, name, sizeof(name) - 1);
    close(fd);
    if (length <= 0) return;
    if (name[length - 1] == '\n') --length;
    name[length] = '\0';
}

bool thread_alive(pid_t process, pid_t thread) {
    return syscall(SYS_tgkill, process, thread, 0) == 0 || errno != ESRCH;
}

// What a thread keeps in its counting slot, which lives in the thread's own memory. A
// thread just joined can still answer thread_alive while the joiner has already unmapped
// its stack (with its thread-local memory): the kernel reads the slot, and says EFAULT
// where a load would fault. False when the memory is gone.
bool read_counting_slot(ThreadLog* const* slot, const ThreadLog*& value) {
    iovec into = {&value, sizeof value};
    iovec from = {const_cast<ThreadLog**>(slot), sizeof value};
    ssize_t read = process_vm_readv(getpid(), &into, 1, &from, 1, 0);
    if (read == static_cast<ssize_t>(sizeof value)) return true;
    if (read < 0 && errno == EFAULT) return false;
    // Not allowed here (a sandbox without the call): the thread answered as alive.
    value = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    return true;
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

bool Recorder::init(DataFile* file, uint32_t buffer_records) {
    if (buffer_records == 0) buffer_records = 1;
    log_capacity_ = buffer_records < kMaxLogCapacity ? buffer_records : kMaxLogCapacity;
    if (file != nullptr && file->is_open()) {
        stream_.output =
            static_cast<Record*>(allocate_pages(size_t{buffer_records} * sizeof(Record)));
        if (stream_.output == nullptr) return false;
        stream_.output_capacity = buffer_records;
        file_ = file;
        stamp_direct_ = true;
    }
    direct_allowed_ = process_barrier::prepare();
    return true;
}

void Recorder::lock() {
    ++lock_wanted_here;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    pthread_mutex_lock(&mutex_);
    holder_.store(&this_thread, std::memory_order_relaxed);
}

bool Recorder::try_lock() {
    ++lock_wanted_here;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (pthread_mutex_trylock(&mutex_) == 0) {
        holder_.store(&this_thread, std::memory_order_relaxed);
        return true;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --lock_wanted_here;
    return false;
}

void Recorder::unlock() {
    holder_.store(nullptr, std::memory_order_relaxed);
    pthread_mutex_unlock(&mutex_);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --lock_wanted_here;
}

bool Recorder::lock_unless_held_here() {
    if (lock_wanted_here == 0) {
        lock();
        return true;
    }
    if (holder_.load(std::memory_order_relaxed) == &this_thread) return false;
    // Stopped while taking or giving up the lock: it is this thread's if it stays taken.
    uint64_t deadline = monotonic_nanoseconds() + kExitWaitNanoseconds;
    for (int round = 0; monotonic_nanoseconds() < deadline; ++round) {
        if (try_lock()) return true;
        pause_briefly(round);
    }
    return false;
}

void Recorder::reset_log(ThreadLog& log, ThreadLog* parent) {
    memset(&log.stats, 0, sizeof(log.stats));
    log.stack_start = parent != nullptr ? parent->stack_start : 0;
    log.stack_peak = 0;
    log.net_heap = 0;
    memset(log.name, 0, sizeof(log.name));
    log.records_directly.store(false, std::memory_order_relaxed);
    log.recording.store(false, std::memory_order_relaxed);
    log.published.store(0, std::memory_order_relaxed);
    log.capacity = log_capacity_;
    log.stop_requested.store(false, std::memory_order_relaxed);
    log.nested = nullptr;
    log.consumed = 0;
    log.parent = parent;
    log.counting_slot = nullptr;
    log.ended = false;
}

// A log nobody uses, or a new one. `may_merge`: logs of threads that are gone may be
// taken back, which merges their events into the stream.
ThreadLog* Recorder::take_free_log_locked(bool may_merge) {
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
    if (!ensure_cursor_room(log_count_ + 1)) return nullptr;
    auto* log = static_cast<ThreadLog*>(
        allocate_pages(ThreadLog::bytes_for(log_capacity_, logs_have_blocks_)));
    if (log == nullptr) return nullptr;
    log->in_use = false;
    log->next = logs_;
    logs_ = log;
    ++log_count_;
    return log;
}

ThreadLog* Recorder::attach_thread(ThreadLog* const* counting_slot) {
    int saved_errno = errno;
    pid_t process = getpid();
    auto thread = static_cast<pid_t>(syscall(SYS_gettid));
    lock();
    ThreadLog* log = stopping_ ? nullptr : take_free_log_locked(true);
    if (log != nullptr) {
        reset_log(*log, nullptr);
        log->counting_slot = counting_slot;
        log->owner_process = process;
        log->owner_thread = thread;
        log->serial = next_serial_++;
        log->in_use = true;
        if (alone_locked(*log))
            become_direct_locked(*log);
        else
            revoke_direct_locked(log);
    }
    unlock();
    errno = saved_errno;
    return log;
}

void Recorder::detach_thread(ThreadLog* log) {
    lock();
    retire_locked(*log);
    unlock();
}

void Recorder::end_thread(ThreadLog* log) {
    lock();
    // The main thread is known to the kernel as long as the process is: its log is
    // folded in at the end, as the logs in use are.
    if (!log->ended && log->owner_thread != log->owner_process) ++ended_count_;
    log->ended = true;
    log->counting_slot = nullptr;
    unlock();
}

void Recorder::reclaim_locked(bool every_thread) {
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

void Recorder::retire_locked(ThreadLog& log) {
    SignalsBlocked blocked;
    if (keep_rows_ && log.parent == nullptr) keep_row_locked(log);
    for (ThreadLog* retiring : {log.nested, &log}) {
        if (retiring == nullptr || !retiring->in_use) continue;
        if (direct_owner_ == retiring) revoke_direct_locked(retiring);  // its own thread
        merge_locked(retiring, cycle_counter_fenced());
        retired_.add_counts(retiring->stats);
        retiring->in_use = false;
    }
    if (events_ != nullptr && log.parent == nullptr) record_thread_name_locked(log);
    if (log.ended && log.owner_thread != log.owner_process) --ended_count_;
    log.ended = false;
    log.nested = nullptr;
}

ThreadLog* Recorder::attach_nested(ThreadLog& own, bool may_wait) {
    if (may_wait)
        lock();
    else if (!try_lock())
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
    unlock();
    return log;
}

ThreadLog* Recorder::begin_nested(ThreadLog& own) {
    if (own.stop_requested.load(std::memory_order_relaxed)) return nullptr;
    ThreadLog* nested = own.nested;
    // The lock may be waited for unless this thread may hold it, or another thread holding
    // it may wait for this one (which is halfway through recording directly).
    bool may_wait = lock_wanted_here == 0 && !own.recording.load(std::memory_order_relaxed);
    if (nested == nullptr) {
        int saved_errno = errno;
        nested = lock_wanted_here == 0 ? attach_nested(own, may_wait) : nullptr;
        errno = saved_errno;
        if (nested == nullptr) return nullptr;
    }
    uint32_t pending = nested->published.load(std::memory_order_relaxed);
    if (may_wait && pending != 0) {
        // Merged now, while that is safe: the log never fills when it is not.
        lock();
        empty_full_log_locked(*nested);
        unlock();
    } else if (!may_wait && pending + 1 >= nested->capacity) {
        return nullptr;  // this call's event would need a merge
    }
    // The thread's next events must not reach the stream ahead of this call's.
    own.records_directly.store(false, std::memory_order_relaxed);
    return nested;
}

void Recorder::become_direct_locked(ThreadLog& log) {
    if (!direct_allowed_) return;
    direct_owner_ = &log;
    log.records_directly.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    // A signal handler of this thread left events in its nested log (while this thread
    // held the lock): they go into the stream before the thread's next ones. A handler
    // running after this check clears the flag itself.
    if (log.nested != nullptr &&
        log.nested->published.load(std::memory_order_relaxed) != log.nested->consumed)
        log.records_directly.store(false, std::memory_order_relaxed);
}

bool Recorder::alone_locked(const ThreadLog& log) const {
    for (const ThreadLog* other = logs_; other != nullptr; other = other->next)
        if (other->in_use && other != &log && other->parent != &log) return false;
    return true;
}

bool Recorder::revoke_direct_locked(ThreadLog* caller, int max_waits) {
    ThreadLog* owner = direct_owner_;
    if (owner == nullptr) return true;
    direct_owner_ = nullptr;
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

// The owner's log is full: everything in it goes into the stream, and it starts over.
void Recorder::empty_full_log_locked(ThreadLog& log) {
    merge_locked(&log, cycle_counter_fenced());
    log.consumed = 0;
    log.published.store(0, std::memory_order_relaxed);
}

void Recorder::merge_full_log(ThreadLog& log) {
    lock();
    empty_full_log_locked(log);
    if (ended_count_ > 0) reclaim_locked(false);  // so that a thread left alone knows it
    if (log.parent == nullptr && alone_locked(log)) become_direct_locked(log);
    unlock();
}

void Recorder::record_with_block(ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site,
                                 const BlockChange& block) {
    if (log.records_directly.load(std::memory_order_relaxed) &&
        record_directly(log, heap_change, stack, site, nullptr, &block))
        return;
    uint32_t n = log.published.load(std::memory_order_relaxed);
    log.events[n] = Event{ordered_cycle_counter(), heap_change, saturated(stack), site};
    log.blocks()[n] = block;
    log.published.store(n + 1, std::memory_order_release);
    if (__builtin_expect(n + 1 == log.capacity, 0)) merge_full_log(log);
}

void Recorder::record_from_signal(ThreadLog& log, uint64_t time, uint64_t stack) {
    if (log.records_directly.load(std::memory_order_relaxed) &&
        record_directly(log, 0, stack, 0, &time, nullptr))
        return;
    uint32_t n = log.published.load(std::memory_order_relaxed);
    // Filling the log means merging it, which needs the lock: only if it is free.
    bool fills = n + 1 == log.capacity;
    if (fills && !try_lock()) return;
    log.events[n] = Event{time, 0, saturated(stack), 0};
    if (logs_have_blocks_) log.blocks()[n] = BlockChange{};
    log.published.store(n + 1, std::memory_order_release);
    if (!fills) return;
    empty_full_log_locked(log);
    unlock();
}

bool Recorder::ensure_cursor_room(uint32_t count) {
    if (count <= cursor_capacity_) return true;
    uint32_t capacity = cursor_capacity_ == 0 ? 64 : cursor_capacity_ * 2;
    while (capacity < count) capacity *= 2;
    auto* cursors = static_cast<Cursor*>(allocate_pages(capacity * sizeof(Cursor)));
    if (cursors == nullptr) return false;
    // Replaced before the old one goes: a fork in between leaves the child usable ones.
    Cursor* old_cursors = cursors_;
    uint32_t old_capacity = cursor_capacity_;
    cursors_ = cursors;
    cursor_capacity_ = capacity;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (old_cursors != nullptr) free_pages(old_cursors, old_capacity * sizeof(Cursor));
    return true;
}

// A k-way merge over the threads' unmerged events, smallest stamp first. Events of
// other threads stamped at or after `cutoff` stay for a later merge: a thread may
// still be publishing an earlier one. A malloc is published before its block can reach
// another thread, and that thread's free is stamped after a fence, so the free carries
// the later stamp and, once merged, its malloc is merged too: a free is never merged
// ahead of its allocation.
void Recorder::merge_locked(ThreadLog* own, uint64_t cutoff) {
    // A full buffer is written at once, unless exit() came from a signal handler that
    // stopped its owner in between.
    if (stream_.output != nullptr && stream_.output_used == stream_.output_capacity) write_output();
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
            top.next = emit_run(*top.log, top.next, top.end, next_head < bound ? next_head : bound);
            if (top.next != top.end) {
                sift_down(0);
                continue;
            }
        }
        cursors_[0] = cursors_[--count];
        sift_down(0);
    }
}

// The hot loop of the merge: the stream's state stays in registers. Whenever the
// stream is stored, the log says how far it is merged: a fork that catches a merge
// (during a write, most likely) leaves the child a stream and logs that agree.
template <bool kRecordingEvents>
inline const Event* Recorder::emit_run_as(ThreadLog& log, const Event* event, const Event* end,
                                          uint64_t bound) {
    Stream stream = stream_;
    // A nested log's events are its thread's.
    const ThreadLog& thread = log.parent != nullptr ? *log.parent : log;
    uint64_t serial = thread.serial + 1, tid = static_cast<uint64_t>(thread.owner_thread);
    do {
        // Into the recording before the stream: a signal handler's exit() that stops the
        // data file's write below finds every event of the stream in the recording.
        if constexpr (kRecordingEvents)
            events_->add(serial, tid, event->time, event->site, log.blocks()[event - log.events]);
        if (__builtin_expect(stream.add(event->heap_change, event->stack, event->time, event->site),
                             0)) {
            stream_ = stream;
            // The log says how far it is merged whenever the buffer is written: a signal
            // handler's exit() that stops the write finds the merge caught up.
            log.consumed = static_cast<uint32_t>(event + 1 - log.events);
            write_output();  // which starts the buffer over
            stream = stream_;
        }
        ++event;
    } while (event != end && event->time < bound);
    stream_ = stream;
    log.consumed = static_cast<uint32_t>(event - log.events);
    return event;
}

const Event* Recorder::emit_run(ThreadLog& log, const Event* event, const Event* end,
                                uint64_t bound) {
    if (__builtin_expect(events_ != nullptr, 0)) return emit_run_recording(log, event, end, bound);
    return emit_run_as<false>(log, event, end, bound);
}

const Event* Recorder::emit_run_recording(ThreadLog& log, const Event* event, const Event* end,
                                          uint64_t bound) {
    return emit_run_as<true>(log, event, end, bound);
}

void Recorder::write_output() {
    writing_here = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (file_ != nullptr) {
        file_->append(stream_.output, stream_.output_used);
        if (complete_on_write_.load(std::memory_order_relaxed)) {
            file_->write_header(stream_.total_peak, stream_.run_peak(), stream_.stack_peak,
                                stream_.last_time);
            header_written_ = true;
        }
    }
    stream_.output_used = 0;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    writing_here = false;
}

void Recorder::fold_counters_locked(Stats& totals) {
    totals.add_counts(retired_);
    for (ThreadLog* log = logs_; log != nullptr; log = log->next)
        if (log->in_use) totals.add_counts(log->stats);
    totals.heap_peak = stream_.run_peak();
    totals.stack_peak = stream_.stack_peak;
    totals.total_peak = stream_.total_peak;
}

// The run is over: nobody records directly any more, and the file gets its last
// records and its header.
void Recorder::complete_file_locked(uint64_t end_time) {
    direct_allowed_ = false;
    if (events_ != nullptr) events_->settle_interrupted_add();
    merge_locked(nullptr, UINT64_MAX);
    stream_.sites = nullptr;  // complete: what threads still do after this changes no figure
    if (events_ != nullptr) {
        for (ThreadLog* log = logs_; log != nullptr; log = log->next)
            if (log->in_use && log->parent == nullptr) record_thread_name_locked(*log);
        EventsFile* events = events_;
        events_ = nullptr;
        events->finish();
    }
    if (file_ == nullptr) return;
    write_output();
    if (stream_.last_time > end_time) end_time = stream_.last_time;
    file_->write_header(stream_.total_peak, stream_.run_peak(), stream_.stack_peak, end_time);
    file_->close();
    file_ = nullptr;
    stream_.output = nullptr;
}

bool Recorder::finish(Stats& totals, uint64_t end_time, ThreadLog* finishing) {
    // exit() from a signal handler that stopped this thread halfway through recording
    // directly: that event is never completed, and no thread may wait for it.
    if (finishing != nullptr) finishing->recording.store(false, std::memory_order_release);
    bool locked = lock_unless_held_here();
    // The same stopped inside the lock, writing the buffer: that work never resumes, so
    // the lock is this thread's to use, and the merge has caught up with the write.
    if (!locked && writing_here && holder_.load(std::memory_order_relaxed) == &this_thread)
        locked = true;
    stopping_ = true;
    bool others_counting = false;
    for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
        if (!log->in_use) continue;
        log->stop_requested.store(true, std::memory_order_relaxed);
        others_counting |= log != finishing && log->counting_slot != nullptr;
    }
    if (!locked) {
        // This thread holds the lock, stopped halfway through a merge: the file stays as
        // a killed run leaves it (every full buffer; readers repair the header), and the
        // counters are whole.
        fold_counters_locked(totals);
        return false;
    }
    if (others_counting) {
        unlock();
        wait_for_calls_in_progress(finishing);
        lock();
    }
    revoke_direct_locked(finishing, kCrashWaits);
    complete_file_locked(end_time);
    fold_counters_locked(totals);
    unlock();
    return true;
}

// Every thread now sees its stop flag at its next call; the barrier makes sure that a
// thread that did not is seen inside its call (its slot empty), and that call is let end.
void Recorder::wait_for_calls_in_progress(const ThreadLog* finishing) {
    process_barrier::run();
    uint64_t deadline = monotonic_nanoseconds() + kExitWaitNanoseconds;
    for (int round = 0;; ++round) {
        bool in_progress = false;
        lock();
        for (const ThreadLog* log = logs_; log != nullptr && !in_progress; log = log->next) {
            if (!log->in_use || log == finishing || log->counting_slot == nullptr) continue;
            // A thread gone without its destructors having run took its slot with it.
            if (!thread_alive(log->owner_process, log->owner_thread)) continue;
            // Empty, or the nested log: inside a call.
            const ThreadLog* counting = nullptr;
            if (!read_counting_slot(log->counting_slot, counting)) continue;  // gone with it
            in_progress = counting == nullptr || counting->parent != nullptr;
        }
        unlock();
        if (!in_progress || monotonic_nanoseconds() > deadline) return;
        pause_briefly(round);
    }
}

bool Recorder::finish_file_after_crash(uint64_t end_time, ThreadLog* crashing) {
    // The lock may belong to a thread that is writing right now (wait for it a little)
    // or to the crashing thread itself (give up: readers repair a zero header).
    for (int attempt = 0; pthread_mutex_trylock(&mutex_) != 0; ++attempt) {
        if (attempt == kCrashWaits) return false;
        sched_yield();
    }
    // The thread recording directly may be the crashing one, stopped halfway.
    bool completed = revoke_direct_locked(crashing, kCrashWaits);
    if (completed) complete_file_locked(end_time);
    pthread_mutex_unlock(&mutex_);
    return completed;
}

void Recorder::keep_file_complete(ThreadLog* own, bool write_now) {
    complete_on_write_.store(true, std::memory_order_relaxed);
    if (!write_now || !lock_unless_held_here()) return;
    if (file_ != nullptr && !stopping_) {
        bring_stream_up_to_date_locked(own);
        // Nothing new since the last header: no write at all, for a program that blocks
        // and unblocks often between allocations.
        if (stream_.output_used > 0 || !header_written_) write_output();
    }
    unlock();
}

// Another thread recording directly would be writing the stream while we read it:
// that ends (it resumes once its log fills and it is alone again).
void Recorder::bring_stream_up_to_date_locked(ThreadLog* own) {
    if (direct_owner_ != nullptr && direct_owner_ != own) revoke_direct_locked(own);
    merge_locked(own, cycle_counter_fenced());
}

Recorder::HeapFigures Recorder::figures(ThreadLog* own) {
    lock();
    bring_stream_up_to_date_locked(own);
    HeapFigures figures = {stream_.heap > 0 ? static_cast<uint64_t>(stream_.heap) : 0,
                           stream_.run_peak(), stream_.heap_peak, stream_.stack_peak};
    unlock();
    return figures;
}

void Recorder::reset_phase_peak(ThreadLog* own) {
    lock();
    bring_stream_up_to_date_locked(own);
    stream_.start_phase();
    unlock();
}

// Other threads' counters are written by their owners without synchronisation; each
// is an aligned 64-bit word, which x86-64 loads whole, so a reading is some value the
// counter had during the call. Deliberately racy, and so kept from ThreadSanitizer.
__attribute__((no_sanitize("thread"))) void Recorder::snapshot(Stats& totals, ThreadLog* own) {
    lock();
    bring_stream_up_to_date_locked(own);
    fold_counters_locked(totals);
    unlock();
}

// The thread's name (read now if nobody has), for the event recording.
void Recorder::record_thread_name_locked(ThreadLog& log) {
    if (log.name[0] == '\0' && log.owner_process == getpid())
        read_thread_name(log.owner_thread, log.name);
    events_->add_thread_name(log.serial + 1, log.name);
}

void Recorder::keep_thread_rows() {
    counting_extras::turn_on();
    lock();
    keep_rows_ = true;
    unlock();
}

void Recorder::keep_row_locked(const ThreadLog& log) {
    if (row_count_ == row_capacity_) {
        size_t capacity = row_capacity_ == 0 ? 256 : row_capacity_ * 2;
        auto* rows = static_cast<ThreadRow*>(allocate_pages(capacity * sizeof(ThreadRow)));
        if (rows == nullptr) return;  // the table will lack this thread; the summary does not
        if (rows_ != nullptr) {
            memcpy(rows, rows_, row_count_ * sizeof(ThreadRow));
            free_pages(rows_, row_capacity_ * sizeof(ThreadRow));
        }
        rows_ = rows;
        row_capacity_ = capacity;
    }
    ThreadRow& row = rows_[row_count_++];
    row.serial = log.serial;
    row.tid = log.owner_thread;
    memcpy(row.name, log.name, sizeof(row.name));
    row.name[sizeof(row.name) - 1] = '\0';
    row.calls = row.allocated = row.freed = row.stack_peak = 0;
    row.net = 0;
    // A signal handler's calls, counted in the thread's nested log, are the thread's too.
    for (const ThreadLog* part : {&log, static_cast<const ThreadLog*>(log.nested)}) {
        if (part == nullptr) continue;
        for (uint64_t calls : part->stats.calls) row.calls += calls;
        row.allocated += part->stats.heap_total();
        row.freed += part->stats.bytes_of(Call::free);
        row.net += part->net_heap;
        row.stack_peak = part->stack_peak > row.stack_peak ? part->stack_peak : row.stack_peak;
    }
}

const ThreadRow* Recorder::thread_rows(size_t& count) {
    lock();
    if (keep_rows_) {
        for (ThreadLog* log = logs_; log != nullptr; log = log->next) {
            if (!log->in_use || log->parent != nullptr) continue;
            if (log->name[0] == '\0') read_thread_name(log->owner_thread, log->name);
            keep_row_locked(*log);
        }
        keep_rows_ = false;  // each running thread once
        // Insertion sort by serial: the table lists threads in the order they began.
        for (size_t i = 1; i < row_count_; ++i) {
            ThreadRow row = rows_[i];
            size_t j = i;
            for (; j > 0 && rows_[j - 1].serial > row.serial; --j) rows_[j] = rows_[j - 1];
            rows_[j] = row;
        }
    }
    count = row_count_;
    unlock();
    return rows_;
}

void Recorder::after_fork_in_child(ThreadLog* own) {
    // The parent writes its pending events to its file; the child only needs them for
    // its own heap and peaks. The file goes first, whatever else the fork interrupted:
    // nothing of the child's may reach it.
    DataFile* file = file_;
    file_ = nullptr;
    stream_.output = nullptr;
    stream_.output_used = 0;
    EventsFile* events = events_;
    events_ = nullptr;
    stamp_direct_ = false;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (file != nullptr) file->close();
    if (events != nullptr) events->close();
    // A thread that recorded directly does not exist here (unless it is this one).
    if (direct_owner_ != own) direct_owner_ = nullptr;
    // A held lock means that another thread was inside the recorder at the fork (it
    // never finishes here), or that this one was and a signal handler forked: its work
    // resumes when the handler returns. Either way the logs stay as they are, merged
    // later like any others; the lock is simply free again.
    if (pthread_mutex_trylock(&mutex_) == 0) {
        merge_locked(nullptr, UINT64_MAX);
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
    // The lock's holder, if another thread, does not exist here.
    if (holder_.load(std::memory_order_relaxed) != &this_thread)
        holder_.store(nullptr, std::memory_order_relaxed);
    pthread_mutex_init(&mutex_, nullptr);
}

}  // namespace memusage
