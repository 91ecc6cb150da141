// Every block we hand out carries a 16-byte header just before it: the requested
// size and a magic word, as glibc's collector does. free and realloc recognise our
// blocks by the magic and pass anything else through untouched. Aligned blocks sit
// further into their real block; the real block's start is kept just below the header.
#pragma once

#include <cstddef>
#include <cstdint>

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
};

inline BlockHeader* header_of(void* user) { return static_cast<BlockHeader*>(user) - 1; }

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

// Allocation sites: a block's site id sits two words below its header. A plain block that
// has one gets 16 more bytes in front (32 in all, so blocks stay 16-byte aligned); an
// aligned block always has room there. Site 0 is no site.
inline constexpr size_t kSitedHeaderBytes = 32;
inline uint64_t& site_slot(BlockHeader* header) { return reinterpret_cast<uint64_t*>(header)[-2]; }

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

struct OurBlock {
    void* real;     // what the real allocator returned: what to free
    uint64_t size;  // what the program asked for
    bool aligned;
    uint32_t site = 0;  // the allocation site, 0 for none
};

// False for blocks that are not ours (allocated before we started, or by someone else).
inline bool find_block(void* user, OurBlock& block) {
    BlockHeader* header = header_of(user);
    if (header->magic == magic_for(header, BlockKind::plain)) {
        block = OurBlock{header, header->size, false};
        return true;
    }
    if (header->magic == magic_for(header, BlockKind::aligned)) {
        block = OurBlock{reinterpret_cast<void**>(header)[-1], header->size, true,
                         static_cast<uint32_t>(site_slot(header))};
        return true;
    }
    if (header->magic == magic_for(header, BlockKind::sited)) {
        block = OurBlock{static_cast<char*>(user) - kSitedHeaderBytes, header->size, false,
                         static_cast<uint32_t>(site_slot(header))};
        return true;
    }
    return false;
}

}  // namespace memusage
