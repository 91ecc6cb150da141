// The data file as the profiled process owns it: opened once, written at tracked
// offsets, its header rewritten at the end. Everything here is async-signal-safe so
// that a fatal signal can still complete the file.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "memusage/record.h"

namespace memusage {

class DataFile {
  public:
    enum class OpenResult { opened, busy, failed };

    // Creates or truncates `path` (mode 0666 less umask) and writes the provisional
    // header (zero peaks, `start_time`). `busy`: another process of the run holds it.
    OpenResult open(const char* path, uint64_t start_time);
    bool is_open() const { return fd_ >= 0; }

    void append(const Record* records, size_t count);

    // The file's bytes [offset, offset + bytes) in memory, shared with the file; null
    // when it cannot be mapped (opened write-only, or the file system refuses).
    void* map(off_t offset, size_t bytes);
    // Has the file system find room for [offset, offset + bytes) and lengthens the file
    // to cover it, if it is shorter (never the other way: another thread may be storing
    // further on); false when the file system is full or cannot. Storing through a
    // mapping beyond the file's end, or where there is no room, would be SIGBUS.
    bool reserve(off_t offset, off_t bytes);
    // The records end at `end`: the file is cut there.
    void set_end(off_t end);
    void write_header(uint64_t total_peak, uint64_t heap_peak, uint64_t stack_peak,
                      uint64_t end_time);

    // Also how a forked child lets go of its parent's file: the lock stays with the
    // parent's descriptor, and nothing is written.
    void close();

  private:
    bool still_ours();
    bool write_at(const void* data, size_t bytes, off_t offset);

    int fd_ = -1;
    off_t end_ = 0;
    uint64_t start_time_ = 0;
    dev_t device_ = 0;
    ino_t inode_ = 0;
    char path_[4096] = {};
};

}  // namespace memusage
