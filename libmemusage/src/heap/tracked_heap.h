// SPDX-License-Identifier: MIT
// The heap functions on blocks with our header. `counter` is a Counting, or Uncounted
// for calls that must not count; the code is the same. Argument rules and error
// results are glibc's, so a program sees exactly what its malloc would give it.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "heap/block.h"
#include "heap/counting.h"
#include "platform/bench_pieces.h"
#include "platform/originals.h"

namespace memusage::tracked {
namespace detail {

// glibc's collector adds its header without checking and hands out a few bytes for
// malloc(SIZE_MAX - 8); we refuse what cannot carry a header.
inline bool with_header(size_t size, size_t header, size_t& total) {
    if (__builtin_add_overflow(body_bytes(size), header, &total)) {
        errno = ENOMEM;
        return false;
    }
    return true;
}

inline void* plain_block(size_t size) {
    if constexpr (bench_off::header) return original::malloc(size);
    size_t total;
    if (!with_header(size, sizeof(BlockHeader), total)) return nullptr;
    void* real = original::malloc(total);
    return real != nullptr ? mark_plain(real, size) : nullptr;
}

// Which header a plain block takes: none beyond the 16 bytes, the sited one, or the sited
// one with the block's description (the event recording).
enum class Header : uint8_t { plain, sited, described };
// A new block's: described whenever the recording and sites are on and it has a site.
inline Header header_for(uint32_t site) {
    if (site == 0) return Header::plain;
    return described_blocks ? Header::described : Header::sited;
}
// A resized block's: its site's, described when the block it resizes was.
inline Header header_for(uint32_t tag, const OurBlock& old) {
    if (tag == 0) return Header::plain;
    return old.ended.described ? Header::described : Header::sited;
}

// What a plain block's header takes: where its real block starts.
inline size_t header_bytes(Header header) {
    return header == Header::plain   ? sizeof(BlockHeader)
           : header == Header::sited ? kSitedHeaderBytes
                                     : kDescribedHeaderBytes;
}
inline void* mark_header(void* real, uint64_t size, uint32_t site, Header header) {
    if (header == Header::plain) return mark_plain(real, size);
    return header == Header::sited ? mark_sited(real, size, site)
                                   : mark_described(real, size, site);
}

// With allocation sites on, a block that has one carries it in a longer header.
inline void* plain_block(size_t size, uint32_t site, Header header) {
    size_t total;
    if (!with_header(size, header_bytes(header), total)) return nullptr;
    void* real = original::malloc(total);
    return real != nullptr ? mark_header(real, size, site, header) : nullptr;
}
inline void* plain_block(size_t size, uint32_t site) {
    if (__builtin_expect(site == 0, 1)) return plain_block(size);
    return plain_block(size, site, header_for(site));
}

// Alignments up to 16 are what malloc gives anyway; larger ones put the header and
// the real block's start in an alignment-sized gap in front of the block (a described
// block's, at least kDescribedAlignedLeast).
inline void* aligned_block(size_t alignment, size_t size, uint32_t site) {
    if (alignment <= 16) return plain_block(size, site);
    const bool described = header_for(site) == Header::described;
    const size_t offset =
        described && alignment < kDescribedAlignedLeast ? kDescribedAlignedLeast : alignment;
    size_t total;
    if (!with_header(size, offset, total)) return nullptr;
    void* real = original::memalign(alignment, total);
    if (real == nullptr) return nullptr;
    return described ? mark_aligned_described(real, offset, size, site)
                     : mark_aligned(real, alignment, size, site);
}

inline void free_real(void* user, const OurBlock& block) {
    mark_freed(user, block);
    original::free(block.real);
}

template <HeapCounter Counter>
__attribute__((always_inline)) inline void* counted(Counter& counter, Call call, size_t size,
                                                    void* block) {
    if (block == nullptr) {
        counter.admission_unused(size);
        counter.failed(call);
    } else {
        counter.allocated(size, block);
    }
    return block;
}

}  // namespace detail

template <HeapCounter Counter>
__attribute__((always_inline)) inline void* allocate(Counter counter, size_t size) {
    counter.allocation_requested(Call::malloc, size);
    if (!counter.admit(Call::malloc, size)) return nullptr;
    return detail::counted(counter, Call::malloc, size,
                           detail::plain_block(size, counter.site(size)));
}

// Inlined into the hooks, as allocate() and release(), so that the Counting need not be
// passed through memory.
template <HeapCounter Counter>
__attribute__((always_inline)) inline void* allocate_zeroed(Counter counter, size_t count,
                                                            size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        counter.impossible_request(Call::calloc);
        errno = ENOMEM;
        return nullptr;
    }
    counter.allocation_requested(Call::calloc, bytes);
    if (!counter.admit(Call::calloc, bytes)) return nullptr;
    // malloc and memset, as glibc's collector does: the real calloc skips the
    // per-thread cache, so it would lay the heap out differently and the program
    // would see other addresses (and other in-place resizes) than under glibc's.
    // Blocks this large are mapped by either, and the kernel's pages are zero already.
    constexpr size_t kAlwaysMapped = size_t{32} << 20;
    void* block = nullptr;
    size_t total;
    uint32_t site = counter.site(bytes);
    if (bytes < kAlwaysMapped) {
        block = detail::plain_block(bytes, site);
        if (block != nullptr) memset(block, 0, bytes);
    } else if (const detail::Header header = detail::header_for(site);
               detail::with_header(bytes, detail::header_bytes(header), total)) {
        void* real = original::calloc(1, total);
        if (real != nullptr) block = detail::mark_header(real, bytes, site, header);
    }
    return detail::counted(counter, Call::calloc, bytes, block);
}

template <HeapCounter Counter>
__attribute__((always_inline)) inline void* reallocate(Counter counter, void* block, size_t size) {
    if (block == nullptr) {
        counter.resize_requested(Call::realloc, 0, size);
        if (!counter.admit(Call::realloc, size)) return nullptr;
        void* fresh = detail::plain_block(size, counter.site(size));
        if (fresh == nullptr) {
            counter.admission_unused(size);
            counter.failed(Call::realloc);
        } else
            counter.reallocated(0, size, true, nullptr, fresh);
        return fresh;
    }
    OurBlock old;
    if (!find_block(block, old)) return original::realloc(block, size);
    counter.keep_site(old.site);  // a resized block stays at the site that allocated it
    counter.ending(old.ended);
    if (size == 0) {
        counter.realloc_call();
        counter.regrown(old.site, old.grown_at, old.size, 0, 0, 0);
        counter.realloc_freed(old.size, block);
        detail::free_real(block, old);
        return nullptr;
    }
    counter.resize_requested(Call::realloc, old.size, size);
    uint64_t growth = size > old.size ? size - old.size : 0;
    if (!counter.admit(Call::realloc, growth)) return nullptr;
    // Sampled sites: growth may change the block's weight, or let it into the sample.
    uint32_t tag = counter.resized_site(old.site, old.size, size);
    // Where it grows: the realloc's own stack, taken before the real allocator's lock.
    uint32_t grown_at = counter.grown_at(old.site, old.grown_at, old.size, size);
    void* resized = nullptr;
    bool moved = true;
    size_t total;
    const detail::Header header = detail::header_for(tag, old);
    if (old.aligned) {
        // realloc promises malloc's alignment only; a plain block keeps things simple.
        resized = detail::plain_block(size, tag, header);
        if (resized != nullptr) {
            memcpy(resized, block, old.size < size ? old.size : size);
            detail::free_real(block, old);
        }
    } else if (detail::with_header(size, detail::header_bytes(header), total)) {
        void* real = original::realloc(old.real, total);
        if (real != nullptr) {
            moved = real != old.real;
            // A plain block entering the sample takes the sited header: its bytes move up.
            if (__builtin_expect(old.site == 0 && tag != 0, 0))
                memmove(static_cast<char*>(real) + kSitedHeaderBytes,
                        static_cast<char*>(real) + sizeof(BlockHeader), body_bytes(old.size));
            resized = detail::mark_header(real, size, tag, header);
        }
    }
    if (resized == nullptr) {
        counter.admission_unused(growth);
        counter.failed(Call::realloc);
    } else {
        counter.reweighed(old.site, tag, old.size);
        if (grown_at != 0 && tag != 0) set_grown_at(resized, grown_at);
        counter.regrown(old.site, old.grown_at, old.size, tag, grown_at, size);
        counter.keep_site(tag);
        counter.reallocated(old.size, size, moved, block, resized);
    }
    return resized;
}

template <HeapCounter Counter>
void* reallocate_array(Counter counter, void* block, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        counter.impossible_request(Call::realloc);
        errno = ENOMEM;
        return nullptr;
    }
    return reallocate(counter, block, bytes);
}

// Not ours, or ours and freed before: glibc's checks get the address it knows. Out of
// line, so that free's common path stays small enough to be inlined into the hook.
__attribute__((noinline)) inline void release_foreign(void* block) {
    void* freed_before = freed_real_block(block);
    original::free(freed_before != nullptr ? freed_before : block);
}

// Inlined into the hooks, so that the Counting need not go through memory.
template <HeapCounter Counter>
__attribute__((always_inline)) inline void release(Counter counter, void* block) {
    if (block == nullptr) {
        counter.free_null();
        return;
    }
    if constexpr (bench_off::header) {
        counter.freed(0, block);
        return original::free(block);
    }
    OurBlock ours;
    if (!find_block(block, ours)) {
        release_foreign(block);
        return;
    }
    // Marked before the event is recorded, so that only the real block is kept across
    // the recording; recorded before the memory goes back, so that another thread that
    // gets it next is recorded after us.
    mark_freed(block, ours);
    if (__builtin_expect(ours.grown_at != 0, 0))
        counter.regrown(ours.site, ours.grown_at, ours.size, 0, 0, 0);
    counter.keep_site(ours.site);
    counter.ending(ours.ended);
    counter.freed(ours.size, block);
    original::free(ours.real);
}

inline size_t usable_size(void* block) {
    if (block == nullptr) return 0;
    OurBlock ours;
    if (!find_block(block, ours)) return original::malloc_usable_size(block);
    size_t offset = static_cast<size_t>(static_cast<char*>(block) - static_cast<char*>(ours.real));
    // The padding is ours: with MALLOC_CHECK_, whose sizes are exact, malloc(7) says 7.
    return original::malloc_usable_size(ours.real) - offset - padding_of(ours.size);
}

// memalign and aligned_alloc (the same function in glibc 2.36).
template <HeapCounter Counter>
void* allocate_aligned(Counter counter, size_t alignment, size_t size) {
    counter.allocation_requested(Call::aligned, size);
    if (!counter.admit(Call::aligned, size)) return nullptr;
    void* block = nullptr;
    if (alignment > SIZE_MAX / 2 + 1) {
        errno = EINVAL;
    } else {
        // glibc rounds an alignment that is not a power of two up to one.
        size_t power = 1;
        while (power < alignment) power <<= 1;
        block = detail::aligned_block(power, size, counter.site(size));
    }
    return detail::counted(counter, Call::aligned, size, block);
}

// valloc, and pvalloc (which also rounds the size up to whole pages).
template <HeapCounter Counter>
void* allocate_page_aligned(Counter counter, size_t size, bool round_size_up) {
    size_t page = static_cast<size_t>(getpagesize());
    if (round_size_up) {
        size_t rounded;
        if (__builtin_add_overflow(size, page - 1, &rounded)) {
            counter.impossible_request(Call::aligned);
            errno = ENOMEM;
            return nullptr;
        }
        size = rounded & ~(page - 1);
    }
    return allocate_aligned(counter, page, size);
}

template <HeapCounter Counter>
int posix_allocate_aligned(Counter counter, void** result, size_t alignment, size_t size) {
    bool valid = alignment != 0 && alignment % sizeof(void*) == 0 &&
                 ((alignment / sizeof(void*)) & (alignment / sizeof(void*) - 1)) == 0;
    if (!valid) {
        counter.allocation_requested(Call::aligned, size);
        counter.failed(Call::aligned);
        return EINVAL;
    }
    // glibc's leaves errno alone on success and at ENOMEM on failure, as malloc does.
    int saved_errno = errno;
    void* block = allocate_aligned(counter, alignment, size);
    if (block == nullptr) {
        errno = ENOMEM;  // as glibc's leaves it, besides returning it
        return ENOMEM;
    }
    errno = saved_errno;
    *result = block;
    return 0;
}

}  // namespace memusage::tracked
