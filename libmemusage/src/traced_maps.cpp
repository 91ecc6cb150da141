#include "traced_maps.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "collector.h"
#include "originals.h"

namespace memusage::traced {
namespace {

uintptr_t address_of(void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

void* map(Counting& counting, void* address, size_t length, int protection, int flags, int fd,
          off_t offset) {
    Call call = (flags & MAP_ANONYMOUS) != 0     ? Call::mmap_a
                : (protection & PROT_WRITE) != 0 ? Call::mmap_w
                                                 : Call::mmap_r;
    counting.allocation_requested(call, length);
    void* result = original::mmap(address, length, protection, flags, fd, offset);
    if (result == MAP_FAILED) {
        counting.failed(call);
        return result;
    }
    uint64_t replaced = collector::mappings.add(address_of(result), length);
    counting.mapped(length, replaced);
    return result;
}

// The ranges are forgotten before the kernel releases them: once released, another
// thread may map the same addresses and add them to the set.
void* remap(Counting& counting, void* old_address, size_t old_length, size_t new_length, int flags,
            void* new_address) {
    counting.resize_requested(Call::mremap, old_length, new_length);
    uint64_t traced_old = collector::mappings.remove(address_of(old_address), old_length);
    void* result = original::mremap(old_address, old_length, new_length, flags, new_address);
    if (result == MAP_FAILED) {
        if (traced_old != 0) collector::mappings.add(address_of(old_address), old_length);
        counting.failed(Call::mremap);
        return result;
    }
    traced_old += collector::mappings.add(address_of(result), new_length);
    counting.remapped(old_length, new_length, result != old_address, traced_old);
    return result;
}

int unmap(Counting& counting, void* address, size_t length) {
    counting.unmap_requested();
    bool valid = length != 0 && address_of(address) % static_cast<uintptr_t>(getpagesize()) == 0;
    uint64_t traced = valid ? collector::mappings.remove(address_of(address), length) : 0;
    int result = original::munmap(address, length);
    if (result != 0) {
        if (traced != 0) collector::mappings.add(address_of(address), length);
        counting.failed(Call::munmap);
        return result;
    }
    counting.unmapped(length, traced);
    return result;
}

}  // namespace memusage::traced
