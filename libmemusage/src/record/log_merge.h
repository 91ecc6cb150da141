// SPDX-License-Identifier: MIT
// The merge of the threads' logs into the event stream, in time order: a k-way merge
// over their unmerged events, each run of one thread's events added in one go, the
// records written whenever the buffer fills and, with the event recording on, every
// event handed to it first. Under the recorder's lock only.
#pragma once

#include <cstdint>

#include "record/data_file_output.h"
#include "record/event_recording.h"
#include "record/event_stream.h"
#include "record/thread_log.h"

namespace memusage {

class LogMerge {
  public:
    constexpr LogMerge(EventStream& stream, DataFileOutput& output, EventRecording& recording)
        : stream_(stream), output_(output), recording_(recording) {}
    LogMerge(const LogMerge&) = delete;
    LogMerge& operator=(const LogMerge&) = delete;

    // Room to merge `count` logs at once; false if the kernel refuses the memory.
    bool ensure_cursor_room(uint32_t count);
    // Merges the unmerged events of the logs in use among `logs` (a list through
    // ThreadLog::next) up to `cutoff`, and all of `own`'s.
    void merge_locked(ThreadLog* logs, ThreadLog* own, uint64_t cutoff);

  private:
    struct Cursor {
        const Event* next;
        const Event* end;
        ThreadLog* log;
        bool take_all;  // the merging thread's own events: all of them, whatever their stamp
    };

    // Inlined into the merge, as it was into the recorder's larger file by itself.
    __attribute__((always_inline)) inline const Event* emit_run(ThreadLog& log, const Event* event,
                                                                const Event* end, uint64_t bound);
    // The loop itself: inlined into emit_run without the recording, so that the merge's
    // common path carries none of the recording's work; out of line with it
    // (emit_run_recording).
    template <bool kRecordingEvents>
    __attribute__((always_inline)) inline const Event* emit_run_as(ThreadLog& log,
                                                                   const Event* event,
                                                                   const Event* end,
                                                                   uint64_t bound);
    __attribute__((noinline)) const Event* emit_run_recording(ThreadLog& log, const Event* event,
                                                              const Event* end, uint64_t bound);

    EventStream& stream_;
    DataFileOutput& output_;
    EventRecording& recording_;
    Cursor* cursors_ = nullptr;
    uint32_t cursor_capacity_ = 0;
};

}  // namespace memusage
