#include "tracked_heap.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "block.h"
#include "originals.h"

namespace memusage::tracked {
namespace {

// glibc's collector adds its header without checking and hands out a few bytes for
// malloc(SIZE_MAX - 8); we refuse what cannot carry a header.
bool with_header(size_t size, size_t header, size_t& total) {
    if (__builtin_add_overflow(size, header, &total)) {
        errno = ENOMEM;
        return false;
    }
    return true;
}

void* plain_block(size_t size) {
    size_t total;
    if (!with_header(size, sizeof(BlockHeader), total)) return nullptr;
    void* real = original::malloc(total);
    return real != nullptr ? mark_plain(real, size) : nullptr;
}

// Alignments up to 16 are what malloc gives anyway; larger ones put the header and
// the real block's start in an alignment-sized gap in front of the block.
void* aligned_block(size_t alignment, size_t size) {
    if (alignment <= 16) return plain_block(size);
    size_t total;
    if (!with_header(size, alignment, total)) return nullptr;
    void* real = original::memalign(alignment, total);
    return real != nullptr ? mark_aligned(real, alignment, size) : nullptr;
}

void* counted(Counting* counting, Call call, size_t size, void* block) {
    if (counting == nullptr) return block;
    if (block == nullptr)
        counting->failed(call);
    else
        counting->allocated(size);
    return block;
}

size_t page_size() { return static_cast<size_t>(getpagesize()); }

}  // namespace

void* allocate(Counting* counting, size_t size) {
    if (counting != nullptr) counting->allocation_requested(Call::malloc, size);
    return counted(counting, Call::malloc, size, plain_block(size));
}

void* allocate_zeroed(Counting* counting, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        if (counting != nullptr) counting->impossible_request(Call::calloc);
        errno = ENOMEM;
        return nullptr;
    }
    if (counting != nullptr) counting->allocation_requested(Call::calloc, bytes);
    // malloc and memset, as glibc's collector does: the real calloc skips the
    // per-thread cache, so it would lay the heap out differently and the program
    // would see other addresses (and other in-place resizes) than under glibc's.
    // Blocks this large are mapped by either, and the kernel's pages are zero already.
    constexpr size_t kAlwaysMapped = size_t{32} << 20;
    void* block = nullptr;
    if (bytes >= kAlwaysMapped) {
        size_t total;
        if (with_header(bytes, sizeof(BlockHeader), total)) {
            void* real = original::calloc(1, total);
            if (real != nullptr) block = mark_plain(real, bytes);
        }
    } else {
        block = plain_block(bytes);
        if (block != nullptr) memset(block, 0, bytes);
    }
    return counted(counting, Call::calloc, bytes, block);
}

void* reallocate(Counting* counting, void* block, size_t size) {
    if (block == nullptr) {
        if (counting != nullptr) counting->resize_requested(Call::realloc, 0, size);
        void* fresh = plain_block(size);
        if (counting != nullptr) {
            if (fresh == nullptr)
                counting->failed(Call::realloc);
            else
                counting->reallocated(0, size, true);
        }
        return fresh;
    }
    OurBlock old;
    if (!find_block(block, old)) return original::realloc(block, size);
    if (size == 0) {
        if (counting != nullptr) {
            counting->realloc_call();
            counting->realloc_freed(old.size);
        }
        original::free(old.real);
        return nullptr;
    }
    if (counting != nullptr) counting->resize_requested(Call::realloc, old.size, size);
    void* resized = nullptr;
    bool moved = true;
    if (old.aligned) {
        // realloc promises malloc's alignment only; a plain block keeps things simple.
        resized = plain_block(size);
        if (resized != nullptr) {
            memcpy(resized, block, old.size < size ? old.size : size);
            original::free(old.real);
        }
    } else {
        size_t total;
        if (with_header(size, sizeof(BlockHeader), total)) {
            void* real = original::realloc(old.real, total);
            if (real != nullptr) {
                moved = real != old.real;
                resized = mark_plain(real, size);
            }
        }
    }
    if (counting != nullptr) {
        if (resized == nullptr)
            counting->failed(Call::realloc);
        else
            counting->reallocated(old.size, size, moved);
    }
    return resized;
}

void* reallocate_array(Counting* counting, void* block, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        if (counting != nullptr) counting->impossible_request(Call::realloc);
        errno = ENOMEM;
        return nullptr;
    }
    return reallocate(counting, block, bytes);
}

void release(Counting* counting, void* block) {
    if (block == nullptr) {
        if (counting != nullptr) counting->free_null();
        return;
    }
    OurBlock ours;
    if (!find_block(block, ours)) {
        original::free(block);
        return;
    }
    // Recorded before the memory goes back, so another thread that gets it next is
    // recorded after us.
    if (counting != nullptr) counting->freed(ours.size);
    original::free(ours.real);
}

size_t usable_size(void* block) {
    if (block == nullptr) return 0;
    OurBlock ours;
    if (!find_block(block, ours)) return original::malloc_usable_size(block);
    size_t offset = static_cast<size_t>(static_cast<char*>(block) - static_cast<char*>(ours.real));
    return original::malloc_usable_size(ours.real) - offset;
}

void* allocate_aligned(Counting* counting, size_t alignment, size_t size) {
    if (counting != nullptr) counting->allocation_requested(Call::aligned, size);
    void* block = nullptr;
    if (alignment > SIZE_MAX / 2 + 1) {
        errno = EINVAL;
    } else {
        // glibc rounds an alignment that is not a power of two up to one.
        size_t power = 1;
        while (power < alignment) power <<= 1;
        block = aligned_block(power, size);
    }
    return counted(counting, Call::aligned, size, block);
}

void* allocate_page_aligned(Counting* counting, size_t size, bool round_size_up) {
    size_t page = page_size();
    if (round_size_up) {
        size_t rounded;
        if (__builtin_add_overflow(size, page - 1, &rounded)) {
            if (counting != nullptr) counting->impossible_request(Call::aligned);
            errno = ENOMEM;
            return nullptr;
        }
        size = rounded & ~(page - 1);
    }
    return allocate_aligned(counting, page, size);
}

int posix_allocate_aligned(Counting* counting, void** result, size_t alignment, size_t size) {
    bool valid = alignment != 0 && alignment % sizeof(void*) == 0 &&
                 ((alignment / sizeof(void*)) & (alignment / sizeof(void*) - 1)) == 0;
    if (!valid) {
        if (counting != nullptr) {
            counting->allocation_requested(Call::aligned, size);
            counting->failed(Call::aligned);
        }
        return EINVAL;
    }
    int saved_errno = errno;
    void* block = allocate_aligned(counting, alignment, size);
    errno = saved_errno;
    if (block == nullptr) return ENOMEM;
    *result = block;
    return 0;
}

}  // namespace memusage::tracked
