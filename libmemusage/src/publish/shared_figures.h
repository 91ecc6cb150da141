// SPDX-License-Identifier: MIT
// The process's live-figures file (memusage/live_format.h): made, written under its
// sequence counter, removed. Only system calls: no allocation, no descriptor kept (the
// file is mapped and its descriptor closed at once).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <initializer_list>

#include "memusage/live_directory.h"
#include "memusage/live_format.h"

namespace memusage::publish {

// The process's start in clock ticks since boot (/proc/PID/stat, field 22); 0 if unknown.
uint64_t start_ticks_of(pid_t pid);
// Called from a thread of the process's: every other thread has ended, the main one with
// pthread_exit (the process then lives as long as any thread does).
bool only_thread_left();

class SharedFigures {
  public:
    // Makes this process's file (one left by an earlier image of this pid, exec'd or dead,
    // is replaced) with its header, its space reserved; nullptr when made, else why not
    // (the directory is not the user's own, the file system is full or read-only...), as
    // the text of a warning. The directory is chosen at the first call
    // (memusage/live_directory.h) and kept.
    const char* create(const char* program, uint32_t flags);
    bool is_open() const { return __atomic_load_n(&header_, __ATOMIC_ACQUIRE) != nullptr; }
    // The figures under the sequence counter.
    void publish(const live_format::Figures& figures);
    // The file goes; the mapping stays (the publisher may still be writing into it).
    void remove();
    // The file is this process's (not the parent's, in a vfork child sharing its memory).
    bool is_this_process() const;
    // In a forked child: the parent's file is the parent's. Not removed, and its mapping
    // replaced by memory of the child's own: a copy the forking thread was making when a
    // signal handler forked resumes in the child and must write nothing of the parent's.
    // The few pages stay (the resumed copy may still be writing into them).
    void forget();
    // When a reader last asked for the top sites (live_format::Header::sites_wanted_ns).
    uint64_t sites_wanted_ns() const;

  private:
    const char* choose_directory();
    const char* problem(std::initializer_list<const char*> parts);

    live_format::Header* header_ = nullptr;
    char directory_[live_format::kPathBytes] = {};
    char path_[live_format::kPathBytes] = {};
    char problem_[live_format::kPathBytes + 128] = {};
    pid_t pid_ = 0;
};

}  // namespace memusage::publish
