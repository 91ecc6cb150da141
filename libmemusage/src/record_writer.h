// Writes full record buffers on a thread of its own, so that the program's threads
// only fill them: the kernel's side of a write (finding pages for the file, copying)
// costs as much again as all the rest of the collector. Two buffers take turns: one
// is filled while the other is written. The thread starts with the first full buffer,
// so a program that never fills one never has it.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "data_file.h"
#include "memusage/record.h"

namespace memusage {

class RecordWriter {
  public:
    // Buffers smaller than this ask for a file that keeps up with the program write
    // by write (MEMUSAGE_BUFFER_SIZE=1 is "unbuffered"): the recording thread writes
    // those itself.
    static constexpr uint32_t kMinBackgroundRecords = 1024;

    // The two buffers of `capacity` records; false when the kernel refuses the memory.
    bool init(DataFile* file, uint32_t capacity);
    Record* first_buffer() const { return buffers_[0]; }

    // Hands over a full buffer (or writes it here, without a writer thread) and returns
    // the one to fill next, once the writer is done with that one. A signal handler
    // cannot start a thread: without `may_start_thread` the buffer is written here.
    Record* submit(Record* full, uint32_t count, bool may_start_thread);
    // Waits until everything handed over is in the file; false if that takes more than
    // `max_waits` yields (a fatal signal's handler cannot wait for ever).
    bool drain(int max_waits = -1);
    // Once what was handed over is written (false if that takes more than `max_waits`
    // yields), later buffers are written by their submitter: at the end of the run,
    // possibly in a fatal signal's handler, which can neither start a thread nor wait
    // for one for ever.
    bool write_here_from_now(int max_waits = -1);
    // Everything is written: the writer thread ends.
    void stop();
    // In a forked child: there is no writer thread, and nothing more to write.
    void forget_after_fork();

  private:
    static void* run(void* self);
    void write_pending();

    DataFile* file_ = nullptr;
    Record* buffers_[2] = {};
    int filling_ = 0;  // which buffer the recording threads fill
    bool background_ = false;
    pthread_t thread_ = {};
    bool thread_started_ = false;

    // The buffer being written and its record count, 0 when the writer is idle. Both
    // sides wait on the count: the writer while it is 0, a submitter while it is not.
    static constexpr uint32_t kStop = UINT32_MAX;
    Record* pending_ = nullptr;
    std::atomic<uint32_t> pending_count_{0};
};

}  // namespace memusage
