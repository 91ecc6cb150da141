#include "record_output.h"

#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

#include "pages.h"

namespace memusage {
namespace {

// The futex is the counter's low half (x86 is little-endian): it changes with every
// count, and repeats only after 2^32 of them.
uint32_t* low_half(std::atomic<uint64_t>& counter) { return reinterpret_cast<uint32_t*>(&counter); }

void futex_wait(std::atomic<uint64_t>& counter, uint64_t while_value) {
    syscall(SYS_futex, low_half(counter), FUTEX_WAIT_PRIVATE, static_cast<uint32_t>(while_value),
            nullptr, nullptr, 0);
}

void futex_wake_all(std::atomic<uint64_t>& counter) {
    syscall(SYS_futex, low_half(counter), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace

bool RecordOutput::init(DataFile* file, uint32_t buffer_records, Mode preferred) {
    file_ = file;
    if (preferred == Mode::mapped && (window_base_ = prepare(0)) != nullptr) {
        mode_ = Mode::mapped;
        window_ = 0;
        current_ = reinterpret_cast<Record*>(window_base_) + kHeaderRecords;  // after the header
        capacity_ = kWindowRecords - kHeaderRecords;
        return true;
    }
    file->set_end(kHeaderRecords * sizeof(Record));
    mode_ = Mode::written;
    current_ = static_cast<Record*>(allocate_pages(size_t{buffer_records} * sizeof(Record)));
    capacity_ = buffer_records;
    return current_ != nullptr;
}

// Room in the file and the file's length over the window first, so that storing there
// is safe, then the mapping with its pages.
char* RecordOutput::prepare(uint64_t window) {
    if (!file_->reserve(window_offset(window), kWindowBytes)) return nullptr;
    return static_cast<char*>(file_->map(window_offset(window), kWindowBytes));
}

// What our thread prepared for `window`, if it is ready; a window it prepared too late
// (this thread made it already) is let go of here.
char* RecordOutput::take_prepared(uint64_t window) {
    if (!thread_started_) return nullptr;
    uint64_t prepared = prepared_.load(std::memory_order_acquire);
    if (prepared == 0) return nullptr;
    char* base = prepared_base_[prepared % 2].exchange(nullptr, std::memory_order_acq_rel);
    if (prepared == window) return base;
    if (base != nullptr) free_pages(base, kWindowBytes);
    return nullptr;
}

Record* RecordOutput::next(bool may_start_thread) {
    if (mode_ == Mode::written) {
        file_->append(current_, capacity_);
        return current_;
    }
    uint64_t window = window_ + 1;
    char* base = take_prepared(window);
    if (base == nullptr) base = prepare(window);
    char* old = window_base_;
    window_base_ = nullptr;
    if (base == nullptr) {
        // The file system is full: the records end with the full window.
        free_pages(old, kWindowBytes);
        current_ = nullptr;
        return nullptr;
    }
    window_ = window;
    window_base_ = base;
    current_ = reinterpret_cast<Record*>(base);
    capacity_ = kWindowRecords;
    if (thread_started_ || (may_start_thread && start_thread())) {
        // Our thread unmaps the full window; one it has not got to yet goes here.
        if (char* unclaimed = retired_.exchange(old, std::memory_order_acq_rel))
            free_pages(unclaimed, kWindowBytes);
        // Sequentially consistent, both: the thread either sees this or says it waits.
        requested_.store(window + 1, std::memory_order_seq_cst);
        if (thread_waits_.load(std::memory_order_seq_cst)) futex_wake_all(requested_);
    } else {
        free_pages(old, kWindowBytes);
    }
    return current_;
}

bool RecordOutput::start_thread() {
    // It takes no signal meant for the program: they all stay blocked in it. A small
    // stack: it only makes system calls.
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    thread_started_ = pthread_create(&thread_, &attributes, run, this) == 0;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    pthread_attr_destroy(&attributes);
    return thread_started_;
}

void* RecordOutput::run(void* self) {
    prctl(PR_SET_NAME, kThreadName);  // how top, ps -L and gdb show it
    static_cast<RecordOutput*>(self)->prepare_requested_windows();
    return nullptr;
}

void RecordOutput::prepare_requested_windows() {
    uint64_t handled = 0;
    for (;;) {
        uint64_t window = requested_.load(std::memory_order_acquire);
        if (window == handled) {
            thread_waits_.store(true, std::memory_order_seq_cst);
            if (requested_.load(std::memory_order_seq_cst) == handled)
                futex_wait(requested_, handled);
            thread_waits_.store(false, std::memory_order_relaxed);
            continue;
        }
        if (char* retired = retired_.exchange(nullptr, std::memory_order_acq_rel))
            free_pages(retired, kWindowBytes);
        if (window == kStop) return;
        if (char* stale =
                prepared_base_[window % 2].exchange(prepare(window), std::memory_order_acq_rel))
            free_pages(stale, kWindowBytes);
        prepared_.store(window, std::memory_order_release);
        handled = window;
    }
}

bool RecordOutput::finish(uint32_t count, int max_waits) {
    if (mode_ == Mode::written) {
        file_->append(current_, count);
        return true;
    }
    off_t end = current_ == nullptr
                    ? window_offset(window_ + 1)
                    : window_offset(window_) + (reinterpret_cast<char*>(current_) - window_base_) +
                          static_cast<off_t>(count * sizeof(Record));
    if (thread_started_) {
        // The thread must be done with its last window: it would lengthen the file again.
        for (int waits = 0; prepared_.load(std::memory_order_acquire) !=
                            requested_.load(std::memory_order_relaxed);
             ++waits) {
            if (waits == max_waits) return false;
            struct timespec pause = {0, 100000};  // a window takes it a millisecond or so
            nanosleep(&pause, nullptr);
        }
        take_prepared(window_);  // one prepared ahead is let go of
        requested_.store(kStop, std::memory_order_seq_cst);
        futex_wake_all(requested_);
        if (max_waits < 0) pthread_join(thread_, nullptr);
        thread_started_ = false;
    }
    file_->set_end(end);
    release_windows();
    return true;
}

void RecordOutput::forget_after_fork() {
    if (mode_ == Mode::mapped) release_windows();
    thread_started_ = false;
}

void RecordOutput::release_windows() {
    if (window_base_ != nullptr) free_pages(window_base_, kWindowBytes);
    window_base_ = nullptr;
    current_ = nullptr;
}

}  // namespace memusage
