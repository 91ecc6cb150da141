#include "mapping_set.h"

#include <atomic>
#include <cstring>

#include "pages.h"

namespace memusage {
namespace {

uintptr_t end_of(uintptr_t start, uint64_t length) {
    uintptr_t end;
    return __builtin_add_overflow(start, length, &end) ? UINTPTR_MAX : end;
}

}  // namespace

bool MappingSet::insert_at(size_t index, Range range) {
    if (count_ == capacity_) {
        size_t capacity = capacity_ == 0 ? 256 : capacity_ * 2;
        auto* ranges = static_cast<Range*>(allocate_pages(capacity * sizeof(Range)));
        if (ranges == nullptr) return false;
        if (ranges_ != nullptr) memcpy(ranges, ranges_, count_ * sizeof(Range));
        // Replaced before the old one goes: a fork in between leaves the child usable ones.
        Range* old_ranges = ranges_;
        size_t old_capacity = capacity_;
        ranges_ = ranges;
        capacity_ = capacity;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        if (old_ranges != nullptr) free_pages(old_ranges, old_capacity * sizeof(Range));
    }
    memmove(ranges_ + index + 1, ranges_ + index, (count_ - index) * sizeof(Range));
    ranges_[index] = range;
    ++count_;
    return true;
}

uint64_t MappingSet::remove_locked(uintptr_t start, uintptr_t end) {
    uint64_t removed = 0;
    size_t i = 0;
    while (i < count_ && ranges_[i].end <= start) ++i;
    while (i < count_ && ranges_[i].start < end) {
        Range r = ranges_[i];
        uintptr_t cut_start = r.start > start ? r.start : start;
        uintptr_t cut_end = r.end < end ? r.end : end;
        removed += cut_end - cut_start;
        bool keep_left = r.start < cut_start, keep_right = cut_end < r.end;
        if (keep_left && keep_right) {
            ranges_[i].end = cut_start;
            if (!insert_at(i + 1, Range{cut_end, r.end})) removed -= r.end - cut_end;
            return removed;
        }
        if (keep_left) {
            ranges_[i++].end = cut_start;
        } else if (keep_right) {
            ranges_[i].start = cut_end;
            return removed;
        } else {
            memmove(ranges_ + i, ranges_ + i + 1, (count_ - i - 1) * sizeof(Range));
            --count_;
        }
    }
    return removed;
}

uint64_t MappingSet::add(uintptr_t start, uint64_t length) {
    uintptr_t end = end_of(start, length);
    pthread_mutex_lock(&mutex_);
    uint64_t replaced = remove_locked(start, end);
    size_t i = 0;
    while (i < count_ && ranges_[i].start < start) ++i;
    insert_at(i, Range{start, end});
    pthread_mutex_unlock(&mutex_);
    return replaced;
}

uint64_t MappingSet::remove(uintptr_t start, uint64_t length) {
    pthread_mutex_lock(&mutex_);
    uint64_t removed = remove_locked(start, end_of(start, length));
    pthread_mutex_unlock(&mutex_);
    return removed;
}

}  // namespace memusage
