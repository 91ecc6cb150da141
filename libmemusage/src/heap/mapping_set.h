// SPDX-License-Identifier: MIT
// The address ranges that traced mmap calls made, and which of their bytes are
// accessible, so that munmap, mremap and mprotect change the heap by exactly those
// bytes and never more (glibc subtracts every unmap and drives the heap below zero).
// Address space reserved with PROT_NONE is traced but not counted until mprotect makes
// it accessible: the JVM, Go and most allocators reserve first and commit later.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace memusage {

class MappingSet {
  public:
    struct Removed {
        uint64_t traced = 0;      // bytes of traced ranges the removal covered
        uint64_t accessible = 0;  // of those, the ones counted in the heap
    };

    // Traces a new map. Returns the accessible traced bytes it replaced (a MAP_FIXED
    // map over earlier ones).
    uint64_t add(uintptr_t start, uint64_t length, bool accessible);
    // Forgets [start, start + length).
    Removed remove(uintptr_t start, uint64_t length);
    // mprotect: the traced bytes of [start, start + length) become accessible or not.
    // Returns the change in accessible traced bytes.
    int64_t protect(uintptr_t start, uint64_t length, bool accessible);

    size_t range_count() const { return count_; }

    // fork(): the lock may have been held by a thread the child does not have, or by
    // this one, interrupted by a signal handler that forked. Nothing waits: the lock is
    // free again, and a change the fork caught halfway may leave one range wrong in
    // the child (never memory it cannot use).
    void after_fork_in_child() { pthread_mutex_init(&mutex_, nullptr); }

  private:
    struct Range {
        uintptr_t start, end;
        bool accessible;
    };
    Removed remove_locked(uintptr_t start, uintptr_t end);
    bool insert_at(size_t index, Range range);
    size_t first_ending_after(uintptr_t address) const;
    bool split_at(uintptr_t address);
    void join_neighbours(size_t first, size_t last);

    pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
    Range* ranges_ = nullptr;
    size_t count_ = 0;
    size_t capacity_ = 0;
};

}  // namespace memusage
