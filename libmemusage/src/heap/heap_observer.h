// SPDX-License-Identifier: MIT
// The program's heap callback (the in-process API): told the heap's size after every
// change, outside the collector's locks and never recursively.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memusage {

using HeapCallback = void (*)(void* cookie, size_t current_bytes);

class HeapObserver {
  public:
    // One relaxed load: what the hooks pay while no callback is set.
    bool armed() const { return callback_.load(std::memory_order_relaxed) != nullptr; }

    // Null removes the callback. Safe while other threads allocate: a call sees the
    // old pair or the new one, never one's function with the other's cookie.
    void set(HeapCallback callback, void* cookie);

    // Calls the callback with `current_bytes`, unless this thread is inside it already.
    void notify(uint64_t current_bytes);

  private:
    std::atomic<HeapCallback> callback_{nullptr};
    std::atomic<void*> cookie_{nullptr};
    std::atomic<uint64_t> version_{0};  // odd while set() is changing the pair
};

extern HeapObserver heap_observer;

}  // namespace memusage
