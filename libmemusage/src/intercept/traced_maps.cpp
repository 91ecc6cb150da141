// SPDX-License-Identifier: MIT
#include "intercept/traced_maps.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "intercept/collector.h"
#include "platform/originals.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4  // Linux 5.7; older headers lack it
#endif

namespace memusage::traced {
namespace {

uintptr_t address_of(void* p) { return reinterpret_cast<uintptr_t>(p); }

// Reserved address space (PROT_NONE) is not memory the program can use: it counts
// once mprotect commits it.
bool accessible(int protection) { return (protection & (PROT_READ | PROT_WRITE | PROT_EXEC)) != 0; }

// munmap and mprotect act on whole pages.
uint64_t in_whole_pages(size_t length) {
    uint64_t page = static_cast<uint64_t>(getpagesize());
    uint64_t rounded;
    return __builtin_add_overflow(length, page - 1, &rounded) ? UINT64_MAX : rounded & ~(page - 1);
}

bool page_aligned(void* address) {
    return address_of(address) % static_cast<uintptr_t>(getpagesize()) == 0;
}

}  // namespace

void* map(Counting& counting, void* address, size_t length, int protection, int flags, int fd,
          off64_t offset) {
    Call call = (flags & MAP_ANONYMOUS) != 0     ? Call::mmap_a
                : (protection & PROT_WRITE) != 0 ? Call::mmap_w
                                                 : Call::mmap_r;
    counting.allocation_requested(call, length);
    void* result = original::mmap64(address, length, protection, flags, fd, offset);
    if (result == MAP_FAILED) {
        counting.failed(call);
        return result;
    }
    bool counted = accessible(protection);
    uint64_t replaced = collector::mappings.add(address_of(result), length, counted);
    counting.mapped(counted ? length : 0, replaced);
    return result;
}

// The ranges are forgotten before the kernel releases them: once released, another
// thread may map the same addresses and add them to the set. A mapping keeps its
// protection when it moves or grows; one we never saw mapped counts as accessible.
void* remap(Counting& counting, void* old_address, size_t old_length, size_t new_length, int flags,
            void* new_address) {
    // MREMAP_DONTUNMAP makes a mapping of new_length bytes beside the old one, which
    // stays: all of it is new memory, not the growth a plain mremap counts.
    bool keeps_old = (flags & MREMAP_DONTUNMAP) != 0;
    counting.resize_requested(Call::mremap, keeps_old ? 0 : old_length, new_length);
    MappingSet::Removed old =
        collector::mappings.remove(address_of(old_address), in_whole_pages(old_length));
    bool counted = old.traced == 0 || old.accessible != 0;
    void* result = original::mremap(old_address, old_length, new_length, flags, new_address);
    // MREMAP_DONTUNMAP leaves the old mapping where it was, emptied but as accessible.
    bool old_stays = result != MAP_FAILED && keeps_old;
    if (result == MAP_FAILED || old_stays) {
        if (old.traced != 0) collector::mappings.add(address_of(old_address), old_length, counted);
    }
    if (result == MAP_FAILED) {
        counting.failed(Call::mremap);
        return result;
    }
    uint64_t replaced = collector::mappings.add(address_of(result), new_length, counted);
    counting.remapped(old_length, new_length, result != old_address, counted ? new_length : 0,
                      (old_stays ? 0 : old.accessible) + replaced);
    return result;
}

int unmap(Counting& counting, void* address, size_t length) {
    counting.unmap_requested();
    MappingSet::Removed removed;
    if (length != 0 && page_aligned(address))
        removed = collector::mappings.remove(address_of(address), in_whole_pages(length));
    int result = original::munmap(address, length);
    if (result != 0) {
        if (removed.traced != 0)
            collector::mappings.add(address_of(address), length, removed.accessible != 0);
        counting.failed(Call::munmap);
        return result;
    }
    counting.unmapped(length, removed.accessible);
    return result;
}

// After the kernel has agreed: a refused mprotect changes nothing.
int protect(Counting& counting, void* address, size_t length, int protection) {
    int result = original::mprotect(address, length, protection);
    if (result != 0 || length == 0) return result;
    int64_t change = collector::mappings.protect(address_of(address), in_whole_pages(length),
                                                 accessible(protection));
    if (change != 0) counting.protection_changed(change);
    return result;
}

}  // namespace memusage::traced
