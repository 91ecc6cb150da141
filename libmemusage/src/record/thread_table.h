// SPDX-License-Identifier: MIT
// The per-thread table (MEMUSAGE_THREADS and the in-process API): one row per thread,
// kept when a thread ends, and for the threads still running when asked at the end.
// Touched only under the recorder's lock.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "memusage/summary.h"
#include "record/thread_log.h"

namespace memusage {

// A running thread's name, from the kernel (the thread may be busy elsewhere). With
// system calls only: this may run in a fatal signal's handler.
void read_thread_name(pid_t tid, char (&name)[16]);

class ThreadTable {
  public:
    // From now on, every thread's row is kept when it ends.
    void keep_rows_locked() { keep_rows_ = true; }
    bool keeps_rows() const { return keep_rows_; }
    void keep_row_locked(const ThreadLog& log);
    // The rows of the threads that ended and of those in `logs` still running, in the
    // order they began; valid until the next call.
    const ThreadRow* rows_locked(ThreadLog* logs, size_t& count);

  private:
    // The rows (of threads that ended, then of all at the end).
    bool keep_rows_ = false;
    ThreadRow* rows_ = nullptr;
    size_t row_count_ = 0, row_capacity_ = 0;
};

}  // namespace memusage
