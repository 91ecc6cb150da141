// SPDX-License-Identifier: MIT
#include "sites/stack_table.h"

#include <cstring>

#include "platform/pages.h"

namespace memusage {
bool StackTable::init(uint32_t max_stacks, uint64_t max_frames) {
    uint64_t slot_count = 1;
    while (slot_count < 2 * uint64_t{max_stacks}) slot_count <<= 1;  // at most half full
    slots_ = static_cast<std::atomic<uint32_t>*>(
        reserve_pages(slot_count * sizeof(std::atomic<uint32_t>)));
    entries_ = static_cast<Entry*>(reserve_pages(uint64_t{max_stacks} * sizeof(Entry)));
    frames_ = static_cast<uintptr_t*>(reserve_pages(max_frames * sizeof(uintptr_t)));
    if (slots_ == nullptr || entries_ == nullptr || frames_ == nullptr) {
        if (slots_ != nullptr) free_pages(slots_, slot_count * sizeof(std::atomic<uint32_t>));
        if (entries_ != nullptr) free_pages(entries_, uint64_t{max_stacks} * sizeof(Entry));
        if (frames_ != nullptr) free_pages(frames_, max_frames * sizeof(uintptr_t));
        slots_ = nullptr;
        return false;
    }
    slot_mask_ = slot_count - 1;
    max_stacks_ = max_stacks;
    max_frames_ = max_frames;
    return true;
}

void StackTable::release() {
    if (slots_ == nullptr) return;
    free_pages(slots_, (slot_mask_ + 1) * sizeof(std::atomic<uint32_t>));
    free_pages(entries_, uint64_t{max_stacks_} * sizeof(Entry));
    free_pages(frames_, max_frames_ * sizeof(uintptr_t));
    slots_ = nullptr;
}

bool StackTable::matches(uint32_t id, uint64_t hash, const uintptr_t* frames,
                         uint32_t depth) const {
    const Entry& entry = entries_[id];
    return entry.hash == hash && entry.depth == depth &&
           memcmp(frames_ + entry.first_frame, frames, depth * sizeof(uintptr_t)) == 0;
}

uint32_t StackTable::intern(const uintptr_t* frames, uint32_t depth, uint64_t hash) {
    uint64_t index = hash;
    for (uint32_t probe = 0; probe < kMaxProbes; ++probe, ++index) {
        std::atomic<uint32_t>& slot = slots_[index & slot_mask_];
        uint32_t id = slot.load(std::memory_order_acquire);
        if (id == 0) {
            uint32_t inserted = insert_into(slot, hash, frames, depth);
            if (inserted != 0) return inserted;
            id = slot.load(std::memory_order_acquire);  // another thread took the slot
        }
        // A slot being filled is passed over: its thread may be the one we interrupted.
        if (id != kBeingFilled && id != 0 && matches(id, hash, frames, depth)) return id;
    }
    overflowed_.store(true, std::memory_order_relaxed);
    return kTableFull;
}

// 0 if another thread claimed the slot first.
uint32_t StackTable::insert_into(std::atomic<uint32_t>& slot, uint64_t hash,
                                 const uintptr_t* frames, uint32_t depth) {
    uint32_t empty = 0;
    if (!slot.compare_exchange_strong(empty, kBeingFilled, std::memory_order_acquire)) return 0;
    uint32_t id = next_id_.load(std::memory_order_relaxed);
    uint64_t first = next_frame_.load(std::memory_order_relaxed);
    // Claimed with compare-and-swap loops, so that a failure never hands out a partial share.
    do {
        if (id >= max_stacks_) {
            slot.store(0, std::memory_order_release);
            overflowed_.store(true, std::memory_order_relaxed);
            return kTableFull;
        }
    } while (!next_id_.compare_exchange_weak(id, id + 1, std::memory_order_relaxed));
    do {
        if (first + depth > max_frames_) {
            entries_[id] = Entry{0, 0, 0};
            slot.store(0, std::memory_order_release);
            overflowed_.store(true, std::memory_order_relaxed);
            return kTableFull;
        }
    } while (!next_frame_.compare_exchange_weak(first, first + depth, std::memory_order_relaxed));
    memcpy(frames_ + first, frames, depth * sizeof(uintptr_t));
    entries_[id] = Entry{hash, first, depth};
    slot.store(id, std::memory_order_release);
    return id;
}

uint32_t StackTable::id_limit() const {
    uint32_t limit = next_id_.load(std::memory_order_acquire);
    return limit < max_stacks_ ? limit : max_stacks_;
}

const uintptr_t* StackTable::frames_of(uint32_t id, uint32_t& depth) const {
    depth = 0;
    if (slots_ == nullptr || id < kFirstId || id >= id_limit()) return nullptr;
    depth = entries_[id].depth;
    return frames_ + entries_[id].first_frame;
}

}  // namespace memusage
