// The address ranges that traced mmap calls added to the heap, so that munmap and
// mremap take away exactly those bytes and never more (glibc subtracts every unmap
// and drives the heap below zero).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace memusage {

class MappingSet {
  public:
    // Returns how many traced bytes the new range replaced (a MAP_FIXED map over an
    // earlier one).
    uint64_t add(uintptr_t start, uint64_t length);
    // Forgets [start, start + length) and returns how many traced bytes it covered.
    uint64_t remove(uintptr_t start, uint64_t length);

    size_t range_count() const { return count_; }

    // fork(): the lock may have been held by a thread the child does not have, or by
    // this one, interrupted by a signal handler that forked. Nothing waits: the lock is
    // free again, and a change the fork caught halfway may leave one range wrong in
    // the child (never memory it cannot use).
    void after_fork_in_child() { pthread_mutex_init(&mutex_, nullptr); }

  private:
    struct Range {
        uintptr_t start, end;
    };
    uint64_t remove_locked(uintptr_t start, uintptr_t end);
    bool insert_at(size_t index, Range range);

    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    Range* ranges_ = nullptr;
    size_t count_ = 0;
    size_t capacity_ = 0;
};

}  // namespace memusage
