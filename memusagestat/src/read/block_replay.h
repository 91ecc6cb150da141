// Replays an event recording into block lives: from each block's allocation to its free (or
// to the end of the recording), at one address and size. Holds only the blocks alive at the
// moment, never the events, so a recording of any length replays in the memory its heap used.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "read/address_map.h"
#include "read/events_reader.h"

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

    // One event, in the recording's order; calls `ended` for the life it ends, if any.
    void add(const RecordedEvent& event, const Ended& ended);
    // The recording is over at `end_time`: every block still alive ends there, unfreed, in
    // the order they began.
    void finish(uint64_t end_time, const Ended& ended);

    int64_t heap() const { return heap_; }  // bytes held by the blocks alive now
    size_t blocks_alive() const { return alive_.size(); }
    // Frees and resizes of blocks the recording never showed being allocated (the file is
    // damaged or began late): skipped, and counted here.
    uint64_t unknown_blocks() const { return unknown_blocks_; }

    // The table of live blocks' own bytes (AddressMap::memory_bytes).
    size_t memory_bytes() const { return alive_.memory_bytes(); }

  private:
    // A live block in 24 bytes (32 with its address): its size, and how long before `start`
    // it was born, in 32 bits each; kFar in either says the whole figure is in far_.
    static constexpr uint32_t kFar = UINT32_MAX;
    struct Alive {
        uint64_t start;
        uint32_t size, site, thread, born_back;
    };
    struct Whole {
        uint64_t size = 0;
        uint32_t site = 0, thread = 0;
        uint64_t born = 0, start = 0;
    };
    struct Far {
        uint64_t size, born;
    };
    void store(uint64_t address, Alive& alive, const Whole& whole);
    Whole load(uint64_t address, const Alive& alive) const;
    void forget(uint64_t address, const Alive& alive);
    void end_life(uint64_t address, const Alive& alive, uint64_t when, bool resized,
                  const Ended& ended);

    AddressMap<Alive> alive_;
    // The few live blocks of 4 GiB or more, or resized 2^32 clock steps after their birth.
    std::unordered_map<uint64_t, Far> far_;
    int64_t heap_ = 0;
    uint64_t unknown_blocks_ = 0;
};

}  // namespace memusagestat
