#include "record_writer.h"

#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

#include "pages.h"

namespace memusage {
namespace {

void futex_wait(std::atomic<uint32_t>& word, uint32_t while_value) {
    syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, while_value, nullptr, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>& word) {
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace

bool RecordWriter::init(DataFile* file, uint32_t capacity) {
    file_ = file;
    background_ = capacity >= kMinBackgroundRecords;
    size_t bytes = size_t{capacity} * sizeof(Record);
    for (int i = 0; i < (background_ ? 2 : 1); ++i) {
        buffers_[i] = static_cast<Record*>(allocate_pages(bytes));
        if (buffers_[i] == nullptr) return false;
    }
    return true;
}

Record* RecordWriter::submit(Record* full, uint32_t count, bool may_start_thread) {
    if (!background_ || count == 0 || (!thread_started_ && !may_start_thread)) {
        file_->append(full, count);
        return full;
    }
    if (!thread_started_) {
        // The writer takes no signal meant for the program: they all stay blocked in
        // it. A small stack: it only ever calls pwrite.
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setstacksize(&attributes, 64 * 1024);
        sigset_t all, previous;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &previous);
        thread_started_ = pthread_create(&thread_, &attributes, run, this) == 0;
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        pthread_attr_destroy(&attributes);
        if (!thread_started_) {
            background_ = false;  // no thread to be had: write here, as glibc does
            file_->append(full, count);
            return full;
        }
    }
    drain();
    pending_ = full;
    pending_count_.store(count, std::memory_order_release);
    futex_wake_all(pending_count_);
    filling_ = 1 - filling_;
    return buffers_[filling_];
}

bool RecordWriter::drain(int max_waits) {
    for (int waits = 0;; ++waits) {
        uint32_t count = pending_count_.load(std::memory_order_acquire);
        if (count == 0) return true;
        if (max_waits < 0) {
            futex_wait(pending_count_, count);
        } else {
            if (waits == max_waits) return false;
            sched_yield();
        }
    }
}

bool RecordWriter::write_here_from_now(int max_waits) {
    if (!drain(max_waits)) return false;
    background_ = false;
    return true;
}

void RecordWriter::stop() {
    if (!thread_started_) return;
    drain();
    pending_count_.store(kStop, std::memory_order_release);
    futex_wake_all(pending_count_);
    pthread_join(thread_, nullptr);
    thread_started_ = false;
    background_ = false;
}

void RecordWriter::forget_after_fork() {
    background_ = false;
    thread_started_ = false;
    pending_count_.store(0, std::memory_order_relaxed);
}

void* RecordWriter::run(void* self) {
    static_cast<RecordWriter*>(self)->write_pending();
    return nullptr;
}

void RecordWriter::write_pending() {
    for (;;) {
        uint32_t count;
        while ((count = pending_count_.load(std::memory_order_acquire)) == 0)
            futex_wait(pending_count_, 0);
        if (count == kStop) return;
        file_->append(pending_, count);
        pending_count_.store(0, std::memory_order_release);
        futex_wake_all(pending_count_);
    }
}

}  // namespace memusage
