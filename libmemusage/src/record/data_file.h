// SPDX-License-Identifier: MIT
// The data file as the profiled process owns it: opened once, written at tracked
// offsets, its header rewritten at the end. Everything here is async-signal-safe so
// that a fatal signal can still complete the file.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "memusage/record.h"
#include "memusage/run_start.h"
#include "platform/owned_file.h"

namespace memusage {

class DataFile {
  public:
    // Creates or truncates `path` (OwnedFile::open) and writes the provisional header
    // (zero peaks, `start_time`). `busy`: another process of the run holds it, or, given
    // `untouched_since` (the file's state when the run began), has written it. `held`:
    // another process holds it but has not written it since the run began, so not one of
    // the run (another run's collector, still going). `failed`: errno says why.
    OpenResult open(const char* path, uint64_t start_time,
                    const FileState* untouched_since = nullptr);
    bool is_open() const { return file_.is_open(); }

    // The line saying, once, that writing failed goes to `sink` (owned_file.h).
    void report_write_errors_to(WarningSink sink) { warning_sink_ = sink; }

    // After the first write that fails, nothing more is written: the file keeps the whole
    // records written before, and its provisional header, so that it reads as the file
    // of a run that died.
    void append(const Record* records, size_t count);
    void write_header(uint64_t total_peak, uint64_t heap_peak, uint64_t stack_peak,
                      uint64_t end_time);

    // Also how a forked child lets go of its parent's file: the lock stays with the
    // parent's descriptor, and nothing is written.
    void close();

  private:
    void give_up_writing(int error, size_t bytes_written);

    OwnedFile file_;
    off_t end_ = 0;
    uint64_t start_time_ = 0;
    bool write_failed_ = false;
    WarningSink warning_sink_ = nullptr;
};

}  // namespace memusage
