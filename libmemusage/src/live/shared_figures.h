// The process's live-figures file (memusage/live_format.h): made, written under its
// sequence counter, removed. Only system calls: no allocation, no descriptor kept (the
// file is mapped and its descriptor closed at once).
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "memusage/live_format.h"

namespace memusage::live {

// "/dev/shm/memusage-<uid>-<pid>" into `path`.
void figures_path(char (&path)[96], uid_t uid, pid_t pid);

// The process's start in clock ticks since boot (/proc/PID/stat, field 22); 0 if unknown.
uint64_t start_ticks_of(pid_t pid);
// Called from a thread of the process's: every other thread has ended, the main one with
// pthread_exit (the process then lives as long as any thread does).
bool only_thread_left();

class SharedFigures {
  public:
    // Makes this process's file (one left by an earlier image of this pid, exec'd or dead,
    // is replaced) with its header; false when it cannot be made.
    bool create(const char* program, uint32_t flags);
    bool is_open() const { return __atomic_load_n(&header_, __ATOMIC_ACQUIRE) != nullptr; }
    // The figures under the sequence counter.
    void publish(const live_format::Figures& figures);
    // The file goes; the mapping stays (the publisher may still be writing into it).
    void remove();
    // The file is this process's (not the parent's, in a vfork child sharing its memory).
    bool is_this_process() const;
    // In a forked child: the parent's file is the parent's. Unmapped, not removed.
    void forget();

  private:
    live_format::Header* header_ = nullptr;
    char path_[96] = {};
    pid_t pid_ = 0;
};

}  // namespace memusage::live
