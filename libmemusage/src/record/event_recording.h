// SPDX-License-Identifier: MIT
// The event recording's hand-off (MEMUSAGE_EVENTS): every heap block event of the
// stream goes to the events file too, in the stream's order, with the threads' names.
// Touched only under the recorder's lock, or by the one thread recording directly.
#pragma once

#include "record/events_file.h"
#include "record/thread_log.h"

namespace memusage {

class EventRecording {
  public:
    void start(EventsFile* file) { file_ = file; }
    // The event recording, when on (and this process's); null otherwise.
    EventsFile* file() const { return file_; }

    // The thread's name (read now if nobody has), for the event recording.
    void record_thread_name_locked(ThreadLog& log);
    // An add that a signal handler's exit() interrupted is completed or dropped whole.
    void settle_interrupted_add() {
        if (file_ != nullptr) file_->settle_interrupted_add();
    }
    // The run is over: the names of the threads still running, then the file's end. Returns
    // the counter's reading the file ends at (0 without a recording).
    uint64_t finish_locked(ThreadLog* logs);
    // fork(): in the child, the parent's recording is not the stream's any more.
    // Returns it, for the caller to close once nothing of the child's can reach it.
    EventsFile* leave_in_child() {
        EventsFile* file = file_;
        file_ = nullptr;
        return file;
    }

  private:
    EventsFile* file_ = nullptr;
};

}  // namespace memusage
