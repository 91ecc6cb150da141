// SPDX-License-Identifier: MIT
#include "record/recorder_lock.h"

#include <sched.h>
#include <time.h>

#include "platform/clock.h"

namespace memusage {
namespace {

// How many of the recorder's locks this thread wants or holds, and its mark as holder.
__thread unsigned lock_wanted_here = 0;
__thread char this_thread;

}  // namespace

void pause_briefly(int round) {
    if (round < 64) {
        sched_yield();
        return;
    }
    struct timespec pause = {0, 50'000};
    nanosleep(&pause, nullptr);
}

void RecorderLock::lock() {
    ++lock_wanted_here;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    pthread_mutex_lock(&mutex_);
    holder_.store(&this_thread, std::memory_order_relaxed);
}

bool RecorderLock::try_lock() {
    ++lock_wanted_here;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (pthread_mutex_trylock(&mutex_) == 0) {
        holder_.store(&this_thread, std::memory_order_relaxed);
        return true;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --lock_wanted_here;
    return false;
}

void RecorderLock::unlock() {
    holder_.store(nullptr, std::memory_order_relaxed);
    pthread_mutex_unlock(&mutex_);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --lock_wanted_here;
}

bool RecorderLock::lock_unless_held_here() {
    if (lock_wanted_here == 0) {
        lock();
        return true;
    }
    if (holder_.load(std::memory_order_relaxed) == &this_thread) return false;
    // Stopped while taking or giving up the lock: it is this thread's if it stays taken.
    uint64_t deadline = monotonic_nanoseconds() + kExitWaitNanoseconds;
    for (int round = 0; monotonic_nanoseconds() < deadline; ++round) {
        if (try_lock()) return true;
        pause_briefly(round);
    }
    return false;
}

bool RecorderLock::wanted_here() { return lock_wanted_here != 0; }

bool RecorderLock::held_here() const {
    return holder_.load(std::memory_order_relaxed) == &this_thread;
}

void RecorderLock::reset_in_child() {
    // The lock's holder, if another thread, does not exist here.
    if (holder_.load(std::memory_order_relaxed) != &this_thread)
        holder_.store(nullptr, std::memory_order_relaxed);
    pthread_mutex_init(&mutex_, nullptr);
}

}  // namespace memusage
