// SPDX-License-Identifier: MIT
// Replays an event recording into block lives: from each block's allocation to its free (or
// to the end of the recording), at one address and size. Holds only the blocks alive at the
// moment, never the events, so a recording of any length replays in the memory its heap used.
// A described block (events_format.h, version 4) is held in no table at all: its release or
// resize record says its whole life, and a bit per address (live_bitmap.h) says which are
// alive; the lives of those alive at the end are read from the recording again, backwards.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "read/address_map.h"
#include "read/events_reader.h"
#include "read/live_bitmap.h"
#include "read/live_starts.h"

namespace memusagestat {

struct BlockLife {
    uint64_t address = 0, size = 0;
    uint32_t site = 0, thread = 0;  // the allocating call's site and thread
    uint64_t born = 0;              // when the block was first allocated (a resize keeps it)
    uint64_t start = 0;             // when it took this address and size
    uint64_t end = 0;               // when it was freed or resized away, or the recording's end
    bool freed = false;             // false: still allocated when the recording ended
    bool resized_away = false;      // its life goes on at a new address or size
};

class BlockReplay {
  public:
    using Ended = std::function<void(const BlockLife&)>;

    BlockReplay();
    ~BlockReplay();
    BlockReplay(const BlockReplay&) = delete;
    BlockReplay& operator=(const BlockReplay&) = delete;

    // One event, in the recording's order; calls `ended` for the lives it ends, if any (at
    // most two), once the event is applied.
    template <class OnEnded>
    void add(const RecordedEvent& event, OnEnded&& ended) {
        BlockLife lives[2];
        const int count = step(event, lives);
        for (int i = 0; i < count; ++i) ended(static_cast<const BlockLife&>(lives[i]));
    }
    // Brings toward the cache what `event` will touch in the table, in two steps some events
    // apart (ReplayFeed): first the index slots where its addresses' searches begin, then,
    // once those have come in, the entries they name. Mere hints: any event, at any time.
    void prefetch_slots(const RecordedEvent& event) const {
        if (event.described) return;  // in no table
        __builtin_prefetch(&index_[home(event.address)], 1);
        if (event.kind == RecordedEvent::Kind::resize)
            __builtin_prefetch(&index_[home(event.old_address)], 1);
    }
    void prefetch_entries(const RecordedEvent& event) const {
        if (event.described) return;
        prefetch_cluster(event.address);
        if (event.kind == RecordedEvent::Kind::resize) prefetch_cluster(event.old_address);
    }

    // The recording `reader` is over at `end_time` (a pass read it to its end or to where
    // it is damaged): every block still alive ends there, unfreed, the table's in the order
    // they began, then the described ones latest first (read from `reader` backwards).
    void finish(EventsReader& reader, uint64_t end_time, const Ended& ended);

    int64_t heap() const { return heap_; }  // bytes held by the blocks alive now
    size_t blocks_alive() const { return size_ + described_alive_; }
    // Frees and resizes of blocks the recording never showed being allocated (the file is
    // damaged or began late): skipped, and counted here.
    uint64_t unknown_blocks() const { return unknown_blocks_; }

    // The live blocks' table's own bytes: its index, its entries and its far blocks' map,
    // and the described blocks' bitmap.
    size_t memory_bytes() const;

  private:
    // A live block in 24 bytes: its address, size and site, and in `stamp` when it took this
    // address (48 bits from base_) above its thread (16 bits). A block that does not fit
    // (4 GiB or more, resized so its birth is not its start, a thread serial of 0xFFFF or
    // more, a time out of range) has kFarThread as its thread and is whole in far_. A free
    // entry has kFreeStamp and the next free entry's index in `site`.
    struct Entry {
        uint64_t address;
        uint32_t size, site;
        uint64_t stamp;
    };
    // No default member initializers: with them, clang does not see a nested struct as
    // default-constructible inside its enclosing class (AddressMap's optional needs it);
    // a value-initialized Whole is all zeros anyway.
    struct Whole {
        uint64_t size;
        uint32_t site, thread;
        uint64_t born, start;
    };
    static constexpr uint64_t kFarThread = 0xFFFF;
    static constexpr uint64_t kFreeStamp = UINT64_MAX;
    static constexpr uint32_t kNone = UINT32_MAX;
    // Entries come in chunks that never move: growing copies only the index.
    static constexpr unsigned kChunkBits = 16;

    int step(const RecordedEvent& event, BlockLife (&ended)[2]);
    int step_described(const RecordedEvent& event, BlockLife (&ended)[2]);
    // The described blocks alive at the end, from the creations read backwards.
    void finish_described(EventsReader& reader, uint64_t end_time, const Ended& ended);

    Entry& entry(uint32_t index) {
        return chunks_[index >> kChunkBits][index & ((uint32_t{1} << kChunkBits) - 1)];
    }
    const Entry& entry(uint32_t index) const {
        return chunks_[index >> kChunkBits][index & ((uint32_t{1} << kChunkBits) - 1)];
    }
    size_t home(uint64_t address) const {
        return static_cast<size_t>((address * 0x9e3779b97f4a7c15ULL) >> shift_);
    }
    // The entries a search for `address` (and an erase there) compares, from its home slot
    // to the first empty one or a few slots on.
    void prefetch_cluster(uint64_t address) const;
    // The index slot holding `address`'s entry, or null.
    uint32_t* find(uint64_t address);
    // The entry for `address`, made empty if it was not there; the bool says whether it was.
    std::pair<uint32_t, bool> insert(uint64_t address);
    // Removes the entry whose index slot is `slot`.
    void erase(uint32_t* slot);
    void grow();
    void allocate_index(size_t capacity);
    void release_index();

    void store(Entry& entry, const Whole& whole);
    Whole load(const Entry& entry);
    uint64_t start_of(const Entry& entry);
    BlockLife end_life(const Entry& entry, uint64_t when, bool freed, bool resized);

    // Open addressing with linear probing over entry indices plus one (0: an empty slot),
    // filled to at most 3/4; deletion shifts back, no tombstones.
    uint32_t* index_ = nullptr;
    size_t capacity_ = 0;
    unsigned shift_ = 64;
    std::vector<std::unique_ptr<Entry[]>> chunks_;
    uint32_t used_ = 0;      // entries ever handed out, free or not
    uint32_t free_ = kNone;  // the first free entry
    size_t size_ = 0;        // live blocks
    bool based_ = false;     // base_ is set (by the first block)
    uint64_t base_ = 0;      // what stamps' times count from
    AddressMap<Whole> far_;  // the blocks that do not fit an entry
    int64_t heap_ = 0;
    uint64_t unknown_blocks_ = 0;
    // Described blocks: which addresses hold one, how many, and how many were made.
    LiveBitmap described_;
    LiveStarts described_starts_;  // when the live ones were made, for the backward reading
    size_t described_alive_ = 0;
    uint64_t described_made_ = 0;
};

}  // namespace memusagestat
