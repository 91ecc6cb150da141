// SPDX-License-Identifier: MIT
#include "record/event_recording.h"

#include <unistd.h>

#include "record/thread_table.h"

namespace memusage {

void EventRecording::record_thread_name_locked(ThreadLog& log) {
    if (log.name[0] == '\0' && log.owner_process == getpid())
        read_thread_name(log.owner_thread, log.name);
    file_->add_thread_name(log.serial + 1, log.name);
}

uint64_t EventRecording::finish_locked(ThreadLog* logs) {
    if (file_ == nullptr) return 0;
    for (ThreadLog* log = logs; log != nullptr; log = log->next)
        if (log->in_use && log->parent == nullptr) record_thread_name_locked(*log);
    EventsFile* events = file_;
    file_ = nullptr;
    return events->finish();
}

}  // namespace memusage
