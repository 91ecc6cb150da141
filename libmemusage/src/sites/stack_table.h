// SPDX-License-Identifier: MIT
// Call stacks interned into small ids, so that a block carries 4 bytes for its stack.
// Lock-free: a lookup only reads, an insert claims an empty slot with one compare-and-swap,
// and nobody ever waits for another thread. Two threads inserting the same new stack at
// once may both get an id for it; every reader of the ids (the report) merges equal stacks.
// Memory is reserved once from the kernel: bounded, whatever the number of events.
#pragma once

#include <atomic>
#include <cstdint>

#include "memusage/sites_format.h"

namespace memusage {

class StackTable {
  public:
    static constexpr uint32_t kNoSite = 0;  // blocks that belong to no site
    static constexpr uint32_t kTableFull = sites_format::kTableFullSiteId;
    static constexpr uint32_t kFirstId = 2;

    // Reserves room for `max_stacks` stacks of `max_frames` return addresses in all.
    // False if the kernel refuses.
    bool init(uint32_t max_stacks, uint64_t max_frames);
    bool ready() const { return slots_ != nullptr; }

    // The id of this stack (innermost frame first), interning it if new; kTableFull when
    // there is no room left for a new one. `hash` is hash_of(frames, depth).
    uint32_t intern(const uintptr_t* frames, uint32_t depth, uint64_t hash);
    uint32_t intern(const uintptr_t* frames, uint32_t depth) {
        return intern(frames, depth, hash_of(frames, depth));
    }
    // Well mixed in every bit, the low ones included (a per-thread cache indexes by them).
    // Taken from the outermost frame in, so that a walk that kept the hash of the outer
    // frames it shares with the last one (row_walk.h) adds only its own inner frames.
    static uint64_t hash_of(const uintptr_t* frames, uint32_t depth) {
        uint64_t hash = kHashStart;
        for (uint32_t i = depth; i > 0; --i) hash = hash_step(hash, frames[i - 1]);
        return hash_end(hash, depth);
    }
    static constexpr uint64_t kHashStart = 0x9e3779b97f4a7c15ULL;
    // Return addresses differ mostly in their low bits; the multiply spreads them over the
    // whole word, the shift brings the high bits down where the slot index is taken.
    static uint64_t hash_step(uint64_t hash, uintptr_t frame) {
        hash = (hash ^ frame) * 0xff51afd7ed558ccdULL;
        return hash ^ (hash >> 32);
    }
    static uint64_t hash_end(uint64_t hash, uint32_t depth) { return hash_step(hash, depth); }

    // Ids below this were handed out (some may be unused, for a thread that died halfway).
    uint32_t id_limit() const;
    bool overflowed() const { return overflowed_.load(std::memory_order_relaxed); }
    // The frames of an id below id_limit(); `depth` 0 for kTableFull and unused ids.
    const uintptr_t* frames_of(uint32_t id, uint32_t& depth) const;

    // The pages back to the kernel (tests).
    void release();

  private:
    struct Entry {
        uint64_t hash;
        uint64_t first_frame;  // index into frames_
        uint32_t depth;
    };
    static constexpr uint32_t kBeingFilled = UINT32_MAX;
    static constexpr uint32_t kMaxProbes = 64;

    bool matches(uint32_t id, uint64_t hash, const uintptr_t* frames, uint32_t depth) const;
    uint32_t insert_into(std::atomic<uint32_t>& slot, uint64_t hash, const uintptr_t* frames,
                         uint32_t depth);

    std::atomic<uint32_t>* slots_ = nullptr;  // open addressing: id, 0 empty, or being filled
    uint64_t slot_mask_ = 0;
    Entry* entries_ = nullptr;  // by id
    uint32_t max_stacks_ = 0;
    uintptr_t* frames_ = nullptr;
    uint64_t max_frames_ = 0;
    std::atomic<uint32_t> next_id_{kFirstId};
    std::atomic<uint64_t> next_frame_{0};
    std::atomic<bool> overflowed_{false};
};

}  // namespace memusage
