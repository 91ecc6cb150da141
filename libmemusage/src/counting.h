// glibc's counting rules (SPEC section 3), one function per outcome. The hooks decide
// what happened; these decide what it counts as.
#pragma once

#include <cstdint>

#include "clock.h"
#include "recorder.h"
#include "thread_log.h"

namespace memusage {

class Counting {
  public:
    Counting(Recorder& recorder, ThreadLog& log, uintptr_t stack_pointer)
        : recorder_(recorder), log_(log), stats_(log.stats), sp_(stack_pointer) {}

    // malloc, calloc, the aligned family, mmap: counted when asked, whatever happens.
    void allocation_requested(Call call, uint64_t size) {
        ++stats_.calls_of(call);
        stats_.bytes_of(call) += size;
        stats_.heap_total += size;
        count_size(size);
    }
    // A size that does not fit in 64 bits (calloc's product, size plus our header):
    // a call and a failure, in the large bucket, adding no bytes it could not have.
    void impossible_request(Call call) {
        ++stats_.calls_of(call);
        ++stats_.histogram[kHistogramLarge];
        ++stats_.all_calls;
        ++stats_.failed_of(call);
    }
    void failed(Call call) { ++stats_.failed_of(call); }
    void allocated(uint64_t size) { record(static_cast<int64_t>(size)); }
    // A map placed over traced ones (MAP_FIXED) replaces their bytes.
    void mapped(uint64_t length, uint64_t replaced_bytes) {
        record(static_cast<int64_t>(length) - static_cast<int64_t>(replaced_bytes));
    }

    // realloc and mremap: growth counts as new memory, the new size as a request.
    void resize_requested(Call call, uint64_t old_size, uint64_t new_size) {
        ++stats_.calls_of(call);
        if (new_size > old_size) {
            stats_.bytes_of(call) += new_size - old_size;
            stats_.heap_total += new_size - old_size;
        }
        count_size(new_size);
    }
    void realloc_call() { ++stats_.calls_of(Call::realloc); }
    void realloc_freed(uint64_t old_size) {
        ++stats_.realloc_free;
        stats_.bytes_of(Call::free) += old_size;
        record(-static_cast<int64_t>(old_size));
    }
    // "nomove" counts resizes done in place, whatever the label suggests.
    void reallocated(uint64_t old_size, uint64_t new_size, bool moved) {
        if (!moved) ++stats_.realloc_nomove;
        if (new_size < old_size) ++stats_.realloc_dec;
        record(static_cast<int64_t>(new_size) - static_cast<int64_t>(old_size));
    }

    void free_null() { ++stats_.calls_of(Call::free); }
    void freed(uint64_t size) {
        ++stats_.calls_of(Call::free);
        stats_.bytes_of(Call::free) += size;
        record(-static_cast<int64_t>(size));
    }

    // munmap: the row counts what was asked; the heap loses only what traced maps added.
    void unmap_requested() { ++stats_.calls_of(Call::munmap); }
    void unmapped(uint64_t length, uint64_t traced_bytes) {
        stats_.bytes_of(Call::munmap) += length;
        record(-static_cast<int64_t>(traced_bytes));
    }
    // mremap: the heap gains the new mapping and loses what the old one had traced.
    void remapped(uint64_t old_size, uint64_t new_size, bool moved, uint64_t traced_old_bytes) {
        if (!moved) ++stats_.mremap_nomove;
        if (new_size < old_size) ++stats_.mremap_dec;
        record(static_cast<int64_t>(new_size) - static_cast<int64_t>(traced_old_bytes));
    }

  private:
    void count_size(uint64_t size) {
        ++stats_.histogram[histogram_bucket(size)];
        ++stats_.all_calls;
    }
    void record(int64_t heap_change) { recorder_.record(log_, heap_change, log_.stack_use(sp_)); }

    Recorder& recorder_;
    ThreadLog& log_;
    Stats& stats_;
    uintptr_t sp_;
};

}  // namespace memusage
