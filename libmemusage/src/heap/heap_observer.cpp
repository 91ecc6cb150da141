// SPDX-License-Identifier: MIT
#include "heap/heap_observer.h"

#include <pthread.h>

#include "heap/counting_extras.h"

namespace memusage {

constinit HeapObserver heap_observer;

namespace {

pthread_mutex_t setting = PTHREAD_MUTEX_INITIALIZER;
__thread bool inside_callback = false;

}  // namespace

void HeapObserver::set(HeapCallback callback, void* cookie) {
    if (callback != nullptr) counting_extras::turn_on();
    pthread_mutex_lock(&setting);
    version_.fetch_add(1, std::memory_order_acq_rel);
    callback_.store(callback, std::memory_order_release);
    cookie_.store(cookie, std::memory_order_release);
    version_.fetch_add(1, std::memory_order_release);
    pthread_mutex_unlock(&setting);
}

void HeapObserver::notify(uint64_t current_bytes) {
    if (inside_callback) return;
    HeapCallback callback;
    void* cookie;
    // A sequence lock: read the pair again if set() was changing it meanwhile.
    for (;;) {
        uint64_t before = version_.load(std::memory_order_acquire);
        // Acquire loads: the second reading of the version cannot move before them.
        callback = callback_.load(std::memory_order_acquire);
        cookie = cookie_.load(std::memory_order_acquire);
        if ((before & 1) == 0 && version_.load(std::memory_order_relaxed) == before) break;
    }
    if (callback == nullptr) return;
    inside_callback = true;
    callback(cookie, static_cast<size_t>(current_bytes));
    inside_callback = false;
}

}  // namespace memusage
