// Direct recording. A thread alone needs neither its log nor the lock nor a fenced
// stamp (which costs as much as the program's own malloc here): it adds its events
// to the stream itself (Recorder::record_directly). This is who has that right, given
// and taken under the recorder's lock: the first other thread to arrive takes it away
// behind a process-wide barrier, and a thread that finds itself alone again when its
// log fills gets it back.
#pragma once

#include "record/thread_log.h"

namespace memusage {

class DirectRecording {
  public:
    // Allowed where the kernel has the barrier it needs.
    void init();
    // The thread recording directly, if any.
    ThreadLog* owner() const { return owner_; }
    // `log`'s thread, alone, records directly from now on (if allowed).
    void become_locked(ThreadLog& log);
    // Ends direct recording; false if the owner is still recording after `max_waits`.
    bool revoke_locked(ThreadLog* caller, int max_waits = -1);
    // Another thread recording directly would be writing the stream while `own` reads it:
    // that ends (it resumes once its log fills and it is alone again).
    void revoke_others_locked(ThreadLog* own) {
        if (owner_ != nullptr && owner_ != own) revoke_locked(own);
    }
    // The run is over: nobody records directly any more.
    void end() { allowed_ = false; }
    // fork(), in the child: a thread that recorded directly does not exist here (unless
    // it is `own`, the forking one).
    void forget_owner_in_child(ThreadLog* own) {
        if (owner_ != own) owner_ = nullptr;
    }

  private:
    bool allowed_ = false;  // the kernel has the barrier, and the run is not over
    ThreadLog* owner_ = nullptr;
};

}  // namespace memusage
