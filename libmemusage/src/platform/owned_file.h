// SPDX-License-Identifier: MIT
// A file the profiled process writes while the program may close or reuse any
// descriptor: kept on a descriptor out of the program's way, and found again by name
// when the program closed it. Async-signal-safe, allocation-free: the data file and the
// sites file are completed from fatal-signal handlers too.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "memusage/run_start.h"

namespace memusage {

// How OwnedFile::open went. busy: another process holds the file's lock, or (given the
// file's state when the run began) has written it since; held: another process holds the
// lock but has not written the file since the run began, so it is not one of the run's;
// failed: errno says why.
enum class OpenResult { opened, busy, held, failed };

class OwnedFile {
  public:
    static constexpr size_t kMaxPath = 4096;

    // Whether `path` can be kept (not empty, shorter than kMaxPath).
    static bool keepable(const char* path);
    // The one way the collector opens a file it writes (the data file, the event recording,
    // the summary file, the sites file): creates `path` (mode 0666 less umask) or opens it
    // without blocking (a FIFO named by mistake must not stop the program), takes its
    // exclusive lock (a second process of the run must not empty a file being written),
    // empties it (unless `untouched_since`, the file's state when the run began, shows it
    // written since), and takes it. When it fails, errno is the failing step's own, kept
    // across the close that follows it.
    OpenResult open(const char* path, const FileState* untouched_since = nullptr);
    // Takes over `fd`, open on `path` (keepable) and described by `st`.
    void take(int fd, const char* path, const struct stat& st);

    bool is_open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const char* path() const { return path_; }

    // True while the descriptor still leads to our file, reopening it by name when the
    // program closed or reused it; false (and closed for good) when the file is gone.
    bool still_ours();
    // Leaves errno as it was: a failure's reason, or the program's own.
    void close();

  private:
    int fd_ = -1;
    dev_t device_ = 0;
    ino_t inode_ = 0;
    char path_[kMaxPath] = {};
};

// Receives, once, the line saying that writing a file failed (from any thread, or a signal
// handler: it must be async-signal-safe).
using WarningSink = void (*)(const char* text, size_t length);

// Gives `sink` "memusage: cannot write the WHAT PATH: REASON; it stops AFTER NUMBER", built
// without allocating: the files are completed from fatal-signal handlers too.
void say_write_failed(WarningSink sink, const char* what, const OwnedFile& file, int error,
                      const char* after, uint64_t number);

// The process holding an exclusive flock on the file `path` names, as /proc/locks lists it
// (the collector holds one on each file it writes, as long as its process lives); 0 when
// none is listed. Reads with system calls only, into a buffer on the stack.
long lock_holder(const char* path);

// pwrite until every byte is in; false on an error, with errno set (ENOSPC when the
// kernel took nothing and said nothing). `written`, if given, gains the bytes written.
bool write_fully_at(int fd, const void* data, size_t bytes, off_t offset,
                    size_t* written = nullptr);

}  // namespace memusage
