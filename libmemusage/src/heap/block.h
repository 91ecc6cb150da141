// SPDX-License-Identifier: MIT
// Every block we hand out carries a 16-byte header just before it: the requested
// size and a magic word, as glibc's collector does. free and realloc recognise our
// blocks by the magic and pass anything else through untouched. Aligned blocks sit
// further into their real block; the real block's start is kept just below the header.
// A block we freed carries a mark instead, so that its second free reaches the real
// allocator's double-free checks with the address that allocator knows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "platform/bench_pieces.h"
#include "record/block_description.h"

namespace memusage {

struct BlockHeader {
    uint64_t size;
    uint64_t magic;
};
static_assert(sizeof(BlockHeader) == 16, "keeps blocks 16-byte aligned");

enum class BlockKind : uint64_t {
    plain = 0xfeedbeebfeedbeebULL,    // the real block starts at the header
    aligned = 0xa11a11edfeedbeebULL,  // the real block's start is stored below the header
    sited = 0x5173d5173dfeedebULL,    // plain, with its allocation site in front (sites.h)
    // Sited, with its description (record/block_description.h) in front: the event recording.
    described = 0xde5c1bedfeedbeebULL,
    aligned_described = 0xa11de5cbfeedbeebULL,  // aligned, likewise; its real start lower
};

inline BlockHeader* header_of(void* user) { return static_cast<BlockHeader*>(user) - 1; }

// Every block has room for its freed mark (below) after the header: smaller requests are
// padded to this, and malloc_usable_size does not count the padding.
inline constexpr size_t kFreedMarkBytes = 8;
inline size_t body_bytes(size_t size) { return size < kFreedMarkBytes ? kFreedMarkBytes : size; }
inline size_t padding_of(uint64_t size) {
    return size < kFreedMarkBytes ? kFreedMarkBytes - size : 0;
}

// Mixing in the address keeps a header copied elsewhere (by realloc, by the program)
// from passing for one of ours.
inline uint64_t magic_for(const BlockHeader* header, BlockKind kind) {
    return static_cast<uint64_t>(kind) ^ reinterpret_cast<uintptr_t>(header);
}

inline void* mark_plain(void* real, uint64_t size) {
    auto* header = static_cast<BlockHeader*>(real);
    header->size = size;
    header->magic = magic_for(header, BlockKind::plain);
    return header + 1;
}

// Allocation sites: a block's site id sits two words below its header, in the slot's low
// half; the high half holds the stack of the realloc that last grew it (0: none since it
// was allocated). A plain block that has one gets 16 more bytes in front (32 in all, so
// blocks stay 16-byte aligned); an aligned block always has room there. Site 0 is no site.
inline constexpr size_t kSitedHeaderBytes = 32;
inline uint64_t& site_slot(BlockHeader* header) { return reinterpret_cast<uint64_t*>(header)[-2]; }
inline uint32_t grown_at_of(uint64_t slot) { return static_cast<uint32_t>(slot >> 32); }
// A sited block grown by realloc: where (sites.h's stack id).
inline void set_grown_at(void* user, uint32_t grown_at) {
    uint64_t& slot = site_slot(header_of(user));
    slot = uint64_t{grown_at} << 32 | static_cast<uint32_t>(slot);
}

// Described blocks (record/block_description.h): with the event recording and allocation
// sites on, a new block with a site carries its description below the site slot, a plain
// one in a 48-byte header (blocks stay 16-byte aligned), an aligned one at an offset of at
// least 64, its real start in the word below the description. Set once at start, before
// any thread counts; a block's magic says which header it has, so a realloc of a sited
// block that is not described (a block grown into the sample) keeps the sited header.
inline constinit bool described_blocks = false;
inline constexpr size_t kDescribedHeaderBytes = 48;
inline constexpr size_t kDescribedAlignedLeast = 64;
static_assert(kDescribedHeaderBytes == kDescriptionBelowUser);

inline void* mark_sited(void* real, uint64_t size, uint32_t site) {
    auto* header = reinterpret_cast<BlockHeader*>(static_cast<char*>(real) + kSitedHeaderBytes) - 1;
    site_slot(header) = site;
    header->size = size;
    header->magic = magic_for(header, BlockKind::sited);
    return header + 1;
}

// `real` must have `offset` bytes (at least 32, a multiple of 16) before the user block.
inline void* mark_aligned(void* real, size_t offset, uint64_t size, uint32_t site = 0) {
    void* user = static_cast<char*>(real) + offset;
    BlockHeader* header = header_of(user);
    site_slot(header) = site;
    reinterpret_cast<void**>(header)[-1] = real;
    header->size = size;
    header->magic = magic_for(header, BlockKind::aligned);
    return user;
}

// A plain block with a site and its description. Its words below the site slot are the
// record path's to write (recorder.h), once its event has a time; a realloc carries them.
inline void* mark_described(void* real, uint64_t size, uint32_t site) {
    auto* header =
        reinterpret_cast<BlockHeader*>(static_cast<char*>(real) + kDescribedHeaderBytes) - 1;
    site_slot(header) = site;
    header->size = size;
    header->magic = magic_for(header, BlockKind::described);
    return header + 1;
}

// `real` must have `offset` bytes (at least kDescribedAlignedLeast, a multiple of 16)
// before the user block.
inline void* mark_aligned_described(void* real, size_t offset, uint64_t size, uint32_t site) {
    void* user = static_cast<char*>(real) + offset;
    BlockHeader* header = header_of(user);
    site_slot(header) = site;
    reinterpret_cast<uint64_t*>(header)[-5] = reinterpret_cast<uintptr_t>(real);
    header->size = size;
    header->magic = magic_for(header, BlockKind::aligned_described);
    return user;
}

struct OurBlock {
    void* real;     // what the real allocator returned: what to free
    uint64_t size;  // what the program asked for
    bool aligned;
    uint32_t site = 0;      // the allocation site, 0 for none
    uint32_t grown_at = 0;  // the stack of the realloc that last grew it, 0 for none
    // A described block: what its release or resize record says of it.
    EndedBlock ended = {};
};

// The event recording's blocks, tested after the others: a run without it never gets here
// for a block of its own.
inline bool find_described_block(void* user, OurBlock& block) {
    BlockHeader* header = header_of(user);
    const bool plain = header->magic == magic_for(header, BlockKind::described);
    if (!plain && header->magic != magic_for(header, BlockKind::aligned_described)) return false;
    const BlockDescription& description = *description_of(reinterpret_cast<uintptr_t>(user));
    const uint64_t slot = description.site_slot;
    void* real = static_cast<char*>(user) - kDescribedHeaderBytes;
    if (!plain)
        real = reinterpret_cast<void*>(
            static_cast<uintptr_t>(reinterpret_cast<const uint64_t*>(header)[-5]));
    block = OurBlock{real,
                     header->size,
                     !plain,
                     static_cast<uint32_t>(slot),
                     grown_at_of(slot),
                     EndedBlock{header->size, description.born, description.start,
                                static_cast<uint32_t>(description.owner), true}};
    return true;
}

// False for blocks that are not ours (allocated before we started, or by someone else),
// and for ours once freed.
inline bool find_block(void* user, OurBlock& block) {
    BlockHeader* header = header_of(user);
    if (header->magic == magic_for(header, BlockKind::plain)) {
        block = OurBlock{header, header->size, false};
        return true;
    }
    if (header->magic == magic_for(header, BlockKind::aligned)) {
        const uint64_t slot = site_slot(header);
        block = OurBlock{reinterpret_cast<void**>(header)[-1], header->size, true,
                         static_cast<uint32_t>(slot), grown_at_of(slot)};
        return true;
    }
    if (header->magic == magic_for(header, BlockKind::sited)) {
        const uint64_t slot = site_slot(header);
        block = OurBlock{static_cast<char*>(user) - kSitedHeaderBytes, header->size, false,
                         static_cast<uint32_t>(slot), grown_at_of(slot)};
        return true;
    }
    return find_described_block(user, block);
}

// Freeing a block hands its header over to the real allocator: glibc's per-thread cache
// writes its list link and key over exactly those 16 bytes, so a second free would no
// longer know the block, pass on an address glibc never gave out, and die of whatever
// glibc's checks make of it (SIGSEGV as often as not) instead of the program's usual
// "double free detected". So before the real free, the block (the program's no longer)
// gets a mark saying how far back the real block starts, and the word just below it a
// value no size has.
namespace freed {
inline constexpr uint64_t kMarkMagic = 0xf5eedb10cf5eedb1ULL;
inline constexpr uint64_t kBelow = 0xf4eedf4eedf4eedfULL;  // also never one of our magics
// Below a block glibc hands out lies its size, never 0 and always under this; below a block
// we freed lies kBelow, glibc's cache key (a random word) or a list link (an address, or
// null: a large block's header 16 bytes into its real block, as a sited block's or one
// aligned to 32, lies under the size-list links glibc's large blocks clear).
inline constexpr uint64_t kLeastWordBelow = uint64_t{1} << 40;
// Where the mark goes: at the start of the block, which glibc's lists of small blocks
// leave alone; in large blocks (from well below glibc's 1 KiB "large" on) 16 bytes
// further, past the two more words glibc's lists of large blocks write.
inline constexpr uint64_t kLargeBlock = 512;
inline constexpr size_t kMarkPlaces[] = {0, 16};

inline uint64_t mark_for(const void* user) {
    return kMarkMagic ^ reinterpret_cast<uintptr_t>(user);
}
}  // namespace freed

inline void mark_freed(void* user, const OurBlock& block) {
    if constexpr (bench_off::freed_mark) return;
    uint64_t offset =
        static_cast<uint64_t>(static_cast<char*>(user) - static_cast<char*>(block.real));
    uint64_t mark = freed::mark_for(user) ^ offset;
    size_t place = block.size >= freed::kLargeBlock ? freed::kMarkPlaces[1] : freed::kMarkPlaces[0];
    memcpy(static_cast<char*>(user) + place, &mark, sizeof mark);
    header_of(user)->magic = freed::kBelow;
}

// The real block behind one of our blocks that was freed already, or null. A mark left in
// memory that was since handed out as someone else's block is not taken for ours: glibc
// wrote that block's size just below it.
inline void* freed_real_block(void* user) {
    uint64_t below = header_of(user)->magic;
    if (below != 0 && below < freed::kLeastWordBelow) return nullptr;
    for (size_t place : freed::kMarkPlaces) {
        uint64_t mark;
        memcpy(&mark, static_cast<char*>(user) + place, sizeof mark);
        uint64_t offset = mark ^ freed::mark_for(user);
        const bool header_offset = (offset & (offset - 1)) == 0 || offset == kDescribedHeaderBytes;
        if (offset >= sizeof(BlockHeader) && header_offset &&
            offset <= reinterpret_cast<uintptr_t>(user))
            return static_cast<char*>(user) - offset;
    }
    return nullptr;
}

}  // namespace memusage
