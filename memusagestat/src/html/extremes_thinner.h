// SPDX-License-Identifier: MIT
// A stream of items cut down to a bounded number without losing an extreme: the stream is
// split into equal buckets by position, and of each bucket only the items with the least and
// the greatest of each measure are kept, with its first (a sample of the ordinary) and its
// last (where the bucket leaves the curve). Kept items stay in stream order. Below the bound
// every item is kept.
#pragma once

#include <memusage/wide_arithmetic.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memusagestat {

template <class Item, size_t Measures>
class ExtremesThinner {
  public:
    using Values = std::array<int64_t, Measures>;
    static constexpr size_t kSlotsPerBucket = 2 * Measures + 2;

    // `expected`: how many items will come (more are put in the last bucket); `bound`: the
    // most items kept. Items go to `out`.
    ExtremesThinner(uint64_t expected, uint64_t bound, std::vector<Item>& out)
        : out_(out),
          thinning_(expected > bound),
          buckets_(std::max<uint64_t>(1, bound / kSlotsPerBucket)),
          expected_(std::max<uint64_t>(1, expected)) {}

    bool thinning() const { return thinning_; }

    void add(const Item& item, const Values& values) {
        const uint64_t position = seen_++;
        if (!thinning_) {
            out_.push_back(item);
            return;
        }
        const uint64_t bucket = bucket_at(position);
        if (bucket != bucket_ || empty_) {
            flush();
            bucket_ = bucket;
            empty_ = false;
            slots_.fill(Slot{position, item, values});
            return;
        }
        for (size_t m = 0; m < Measures; ++m) {
            if (values[m] < slots_[2 * m].values[m]) slots_[2 * m] = Slot{position, item, values};
            if (values[m] > slots_[2 * m + 1].values[m])
                slots_[2 * m + 1] = Slot{position, item, values};
        }
        slots_[kSlotsPerBucket - 1] = Slot{position, item, values};  // the last; [-2] the first
    }

    // After the last item.
    void finish() { flush(); }

  private:
    // min(buckets - 1, position * buckets / expected), for positions coming one by one: the
    // product and quotient once a bucket (its first position), not once an item.
    uint64_t bucket_at(uint64_t position) {
        while (at_ + 1 < buckets_ && position >= next_start_) {
            ++at_;
            next_start_ = memusage::multiply_divide_up(at_ + 1, expected_, buckets_);
        }
        return at_;
    }

    struct Slot {
        uint64_t position;
        Item item;
        Values values;
    };

    void flush() {
        if (empty_) return;
        std::array<const Slot*, kSlotsPerBucket> kept;
        for (size_t i = 0; i < kSlotsPerBucket; ++i) kept[i] = &slots_[i];
        std::sort(kept.begin(), kept.end(),
                  [](const Slot* a, const Slot* b) { return a->position < b->position; });
        uint64_t last = UINT64_MAX;
        for (const Slot* slot : kept) {
            if (slot->position == last) continue;
            last = slot->position;
            out_.push_back(slot->item);
        }
        empty_ = true;
    }

    std::vector<Item>& out_;
    bool thinning_;
    uint64_t buckets_, expected_;
    uint64_t seen_ = 0, bucket_ = 0;
    uint64_t at_ = 0;  // bucket_at's bucket, and the first position of the next
    uint64_t next_start_ = memusage::multiply_divide_up(1, expected_, buckets_);
    bool empty_ = true;
    std::array<Slot, kSlotsPerBucket> slots_{};
};

}  // namespace memusagestat
