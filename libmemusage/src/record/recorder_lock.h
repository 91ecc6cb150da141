// SPDX-License-Identifier: MIT
// The recorder's one lock, taken once per full log (never per event), and what the
// end of the run and signal handlers need to know about it: whether this thread wants
// or holds it, so that a handler running on this thread never waits for it then.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

namespace memusage {

// How long the end of the run waits for a call in progress, or for a lock this thread
// may hold; a thread stopped longer than this (by a signal handler that blocks, say)
// costs at most one call's worth of agreement between the summary and the file.
constexpr long kExitWaitNanoseconds = 200'000'000;
constexpr int kCrashWaits = 2000;  // yields a fatal signal's handler waits at most

uint64_t monotonic_nanoseconds();
void pause_briefly(int round);

class RecorderLock {
  public:
    // The lock, noting (per thread) that this thread wants or holds it: a signal handler
    // running on this thread must not wait for it then.
    void lock();
    bool try_lock();
    void unlock();
    // The lock, unless this thread may hold it already, which is false.
    bool lock_unless_held_here();
    // This thread wants or holds the lock (or is between the two).
    static bool wanted_here();
    bool held_here() const;

    // For a fatal signal's handler: the bare mutex, without the marks.
    bool try_lock_unmarked() { return pthread_mutex_trylock(&mutex_) == 0; }
    void unlock_unmarked() { pthread_mutex_unlock(&mutex_); }
    // fork(): in the child, the lock is free again, whoever held it in the parent.
    void reset_in_child();

  private:
    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    std::atomic<const void*> holder_{nullptr};  // which thread holds the lock (lock())
};

}  // namespace memusage
