// SPDX-License-Identifier: MIT
// The glibc data file's side of the event stream: the record buffer written when full,
// the header kept complete on request, and the file's last records and final header at
// the end of the run. Touched only under the recorder's lock, or by the one thread
// recording directly.
#pragma once

#include <atomic>
#include <cstdint>

#include "record/data_file.h"
#include "record/event_stream.h"

namespace memusage {

class DataFileOutput {
  public:
    // `file` (open) gets the stream's records, collected `buffer_records` at a time in a
    // buffer made here; false if the kernel refuses the memory.
    bool open(DataFile* file, uint32_t buffer_records, EventStream& stream);
    bool is_open() const { return file_ != nullptr; }

    // Writes the stream's record buffer (and, when kept complete, the header) and starts
    // the buffer over.
    void write(EventStream& stream);
    // This thread is writing the record buffer: the merge it may be part of has caught up.
    static bool writing_here();

    // From now on every write of the record buffer also writes the header, peaks as of
    // the records written, so that a death no handler sees leaves a complete file.
    void keep_complete() { complete_on_write_.store(true, std::memory_order_relaxed); }
    // Writes unless nothing is new since the last header: no write at all, for a program
    // that blocks and unblocks often between allocations.
    void write_if_new(EventStream& stream) {
        if (stream.output_used > 0 || !header_written_) write(stream);
    }

    // The run is over: the last records and the header (its end time no earlier than the
    // last record's), then the file is closed.
    void complete(EventStream& stream, uint64_t end_time);

    // fork(): in the child, the parent's file is not the stream's any more. Returns it,
    // for the caller to close once nothing of the child's can reach it.
    DataFile* leave_in_child(EventStream& stream);

  private:
    DataFile* file_ = nullptr;
    // keep_complete() was called; header_written_: the header describes the records
    // written so far (set under the lock, or by the thread recording directly).
    std::atomic<bool> complete_on_write_{false};
    bool header_written_ = false;
};

}  // namespace memusage
