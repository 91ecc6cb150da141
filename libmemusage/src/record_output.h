// Where the stream's records go: straight into the data file, mapped a window at a
// time, so that a record is in the file the moment it is stored. A run killed by any
// signal leaves every record behind (then zero records, room made ahead, which readers
// drop), and no write ever copies them. A thread of ours prepares the next window while
// the program fills this one (room in the file, the file's length, the mapping and its
// pages) and lets go of the last: that work, as much again as all the rest of the
// collector, is done on another core. The program never waits for it: a window it
// needs before the thread has it ready, it prepares itself. A file that cannot be
// mapped (one we may only write, or a file system that cannot reserve room) gets its
// records written a buffer at a time, MEMUSAGE_BUFFER_SIZE records per write, as glibc
// does.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "data_file.h"
#include "memusage/record.h"

namespace memusage {

class RecordOutput {
  public:
    // 768 KiB, glibc's default buffer: whole pages and whole records, so that a record
    // never straddles two windows.
    static constexpr uint32_t kWindowRecords = 32768;
    static constexpr off_t kWindowBytes = kWindowRecords * sizeof(Record);
    static constexpr const char* kThreadName = "memusage-file";

    enum class Mode { mapped, written };

    // After the file's header. `mapped` falls back to `written` when the file cannot be
    // mapped; false when there is no memory for the buffer either.
    bool init(DataFile* file, uint32_t buffer_records, Mode preferred = Mode::mapped);
    Mode mode() const { return mode_; }

    // Where records go now, and how many fit there before next().
    Record* current() const { return current_; }
    uint32_t capacity() const { return capacity_; }

    // The current window or buffer is full: where the next records go, or null when the
    // file system has no room left (the records then end here). A signal handler cannot
    // start a thread: without `may_start_thread` and no thread yet, the work is done here.
    Record* next(bool may_start_thread);

    // The records end after the first `count` of current(): the last ones are written,
    // the file is cut after them, our thread ends. False (nothing done) if the thread
    // is still busy after `max_waits` pauses of 0.1 ms, which only a fatal signal's
    // handler sets.
    bool finish(uint32_t count, int max_waits = -1);
    // In a forked child: the file is the parent's, and the thread does not exist.
    void forget_after_fork();

  private:
    static constexpr uint64_t kStop = UINT64_MAX;

    static void* run(void* self);
    void prepare_requested_windows();
    bool start_thread();
    char* prepare(uint64_t window);
    char* take_prepared(uint64_t window);
    void release_windows();
    off_t window_offset(uint64_t window) const { return static_cast<off_t>(window) * kWindowBytes; }

    DataFile* file_ = nullptr;
    Mode mode_ = Mode::written;
    Record* current_ = nullptr;
    uint32_t capacity_ = 0;
    uint64_t window_ = 0;  // mapped: the window being filled, at `window_base_`
    char* window_base_ = nullptr;

    // Our thread prepares window `requested_` into `prepared_base_[window % 2]` (null
    // if it could not), then sets `prepared_` to it; it unmaps what it finds in
    // `retired_` first. Mappings change hands only by exchange, so each has exactly
    // one owner: one prepared too late, or taken for the wrong window, is unmapped by
    // whoever ends up holding it.
    pthread_t thread_ = {};
    bool thread_started_ = false;
    std::atomic<uint64_t> requested_{0};
    std::atomic<uint64_t> prepared_{0};
    std::atomic<char*> prepared_base_[2] = {};
    std::atomic<char*> retired_{nullptr};
    std::atomic<bool> thread_waits_{false};
};

}  // namespace memusage
