// SPDX-License-Identifier: MIT
// A described block (the event recording, version 4): a block with a site, made while the
// event recording is on, whose header carries what its release or resize record must say
// of it (memusage/events_format.h), so that a reader of the recording needs no table of the
// blocks alive. The record path writes the words with the event's own time; the heap's
// header code (heap/block.h) makes room for them and reads them back before the real free.
#pragma once

#include <cstdint>

#include "memusage/events_format.h"

namespace memusage {

// The four words below a described block's 16-byte header (heap/block.h's BlockHeader),
// the lowest first; the site slot is heap/block.h's, at the same place as in a sited block.
struct BlockDescription {
    uint64_t start;      // the shifted event time at which it took this address and size
    uint64_t born;       // the shifted event time of its allocation (a resize keeps it)
    uint64_t site_slot;  // heap/block.h's site_slot
    uint64_t owner;      // the allocating thread's serial, as the recording's thread records
};
static_assert(sizeof(BlockDescription) == 32);
inline constexpr uint64_t kDescriptionBelowUser = 16 + sizeof(BlockDescription);

inline BlockDescription* description_of(uint64_t user_address) {
    return reinterpret_cast<BlockDescription*>(
        static_cast<uintptr_t>(user_address - kDescriptionBelowUser));
}

// What a release or resize record says of the block it ends, read from a described block's
// header before the real free (heap/counting.h).
struct EndedBlock {
    uint64_t size = 0;  // its size until the event
    uint64_t born = 0;  // shifted event times, as in BlockDescription
    uint64_t start = 0;
    uint32_t owner = 0;
    bool described = false;  // false: the block has no description, the rest is 0
};

}  // namespace memusage
