// SPDX-License-Identifier: MIT
#include "heap/mapping_set.h"

#include <atomic>
#include <cstring>

#include "platform/pages.h"

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

// The ranges never overlap, so their ends are in order as their starts are.
size_t MappingSet::first_ending_after(uintptr_t address) const {
    size_t low = 0, high = count_;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (ranges_[middle].end <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

// False when there was no memory for the second half: the range stays whole.
bool MappingSet::split_at(uintptr_t address) {
    size_t i = first_ending_after(address);
    if (i == count_ || ranges_[i].start >= address) return true;
    Range right = ranges_[i];
    right.start = address;
    if (!insert_at(i + 1, right)) return false;
    ranges_[i].end = address;
    return true;
}

// Keeps a reservation committed piece by piece from becoming thousands of ranges.
void MappingSet::join_neighbours(size_t first, size_t last) {
    size_t i = first > 0 ? first : 1;
    while (i < count_ && i <= last + 1) {
        Range& left = ranges_[i - 1];
        if (left.end == ranges_[i].start && left.accessible == ranges_[i].accessible) {
            left.end = ranges_[i].end;
            memmove(ranges_ + i, ranges_ + i + 1, (count_ - i - 1) * sizeof(Range));
            --count_;
            if (last > 0) --last;
        } else {
            ++i;
        }
    }
}

MappingSet::Removed MappingSet::remove_locked(uintptr_t start, uintptr_t end) {
    Removed removed;
    auto forget = [&removed](const Range& r, uintptr_t from, uintptr_t to) {
        removed.traced += to - from;
        if (r.accessible) removed.accessible += to - from;
    };
    size_t i = first_ending_after(start);
    while (i < count_ && ranges_[i].start < end) {
        Range r = ranges_[i];
        uintptr_t cut_start = r.start > start ? r.start : start;
        uintptr_t cut_end = r.end < end ? r.end : end;
        forget(r, cut_start, cut_end);
        bool keep_left = r.start < cut_start, keep_right = cut_end < r.end;
        if (keep_left && keep_right) {
            ranges_[i].end = cut_start;
            // Without memory for the right part the set forgets it too, and says so.
            if (!insert_at(i + 1, Range{cut_end, r.end, r.accessible})) forget(r, cut_end, r.end);
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

uint64_t MappingSet::add(uintptr_t start, uint64_t length, bool accessible) {
    uintptr_t end = end_of(start, length);
    pthread_mutex_lock(&mutex_);
    uint64_t replaced = remove_locked(start, end).accessible;
    insert_at(first_ending_after(start), Range{start, end, accessible});
    pthread_mutex_unlock(&mutex_);
    return replaced;
}

MappingSet::Removed MappingSet::remove(uintptr_t start, uint64_t length) {
    pthread_mutex_lock(&mutex_);
    Removed removed = remove_locked(start, end_of(start, length));
    pthread_mutex_unlock(&mutex_);
    return removed;
}

int64_t MappingSet::protect(uintptr_t start, uint64_t length, bool accessible) {
    uintptr_t end = end_of(start, length);
    pthread_mutex_lock(&mutex_);
    // A range a split could not cut (no memory) straddles the edge and keeps its state.
    split_at(start);
    split_at(end);
    int64_t change = 0;
    size_t first = first_ending_after(start), last = first;
    for (size_t i = first; i < count_ && ranges_[i].start < end; ++i) {
        Range& r = ranges_[i];
        last = i;
        if (r.start < start || r.end > end || r.accessible == accessible) continue;
        r.accessible = accessible;
        int64_t bytes = static_cast<int64_t>(r.end - r.start);
        change += accessible ? bytes : -bytes;
    }
    join_neighbours(first, last);
    pthread_mutex_unlock(&mutex_);
    return change;
}

}  // namespace memusage
