// SPDX-License-Identifier: MIT
// Memory for the collector's own tables, straight from the kernel: never through the
// profiled program's allocator (which is us) nor through the exported mmap (also us).
#pragma once

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

namespace memusage {

// 32-bit machines map through mmap2 (its offset in pages; SYS_mmap is the old call taking
// its arguments in memory on i386, and absent on 32-bit ARM).
#ifdef SYS_mmap2
inline constexpr long kMapCall = SYS_mmap2;
#else
inline constexpr long kMapCall = SYS_mmap;
#endif

// mmap as the kernel does it, for the maps made before the C library's mmap is known.
inline void* map_by_system_call(void* address, size_t length, int protection, int flags, int fd,
                                off64_t offset) {
#ifdef SYS_mmap2
    offset /= 4096;  // mmap2 takes it in 4096-byte units
#endif
    return reinterpret_cast<void*>(
        syscall(kMapCall, address, length, protection, flags, fd, offset));
}

inline void* allocate_pages(size_t bytes) {
    long result = syscall(kMapCall, nullptr, bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (result == -1) return nullptr;
    return reinterpret_cast<void*>(result);
}

inline void free_pages(void* pages, size_t bytes) { syscall(SYS_munmap, pages, bytes); }

// Large tables sized for the worst case: the kernel gives a page only when it is first
// touched, so what is never used costs no memory (and, with MAP_NORESERVE, no swap
// reservation either).
inline void* reserve_pages(size_t bytes) {
    long result = syscall(kMapCall, nullptr, bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (result == -1) return nullptr;
    return reinterpret_cast<void*>(result);
}

}  // namespace memusage
