// SPDX-License-Identifier: MIT
// The functions we stand in for, as the next library in line (libc) provides them.
// One list drives every declaration and every lookup, so intercepting another
// function is a one-line change here plus its hook.
#pragma once

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <threads.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#define MEMUSAGE_HOOKED_FUNCTIONS(X) \
    X(malloc)                        \
    X(calloc)                        \
    X(realloc)                       \
    X(free)                          \
    X(memalign)                      \
    X(aligned_alloc)                 \
    X(posix_memalign)                \
    X(valloc)                        \
    X(pvalloc)                       \
    X(reallocarray)                  \
    X(malloc_usable_size)            \
    X(mmap)                          \
    X(mmap64)                        \
    X(mremap)                        \
    X(munmap)                        \
    X(mprotect)                      \
    X(sigaction)                     \
    X(signal)                        \
    X(__sigaction)                   \
    X(bsd_signal)                    \
    X(ssignal)                       \
    X(sysv_signal)                   \
    X(__sysv_signal)                 \
    X(sigset)                        \
    X(sigignore)                     \
    X(sigprocmask)                   \
    X(pthread_sigmask)               \
    X(sigblock)                      \
    X(sigsetmask)                    \
    X(execve)                        \
    X(execvp)                        \
    X(execvpe)                       \
    X(fexecve)                       \
    X(execveat)                      \
    X(pthread_create)

// The same, for functions a C library may lack (older than the function): missing, they are
// null and the collector runs on without them.
#define MEMUSAGE_OPTIONAL_FUNCTIONS(X) X(thrd_create)

// Exported by glibc, but declared by its headers only for other standards, or not at all.
extern "C" {
sighandler_t bsd_signal(int signal_number, sighandler_t handler) noexcept;
// glibc's own name for sigaction, which programs may call: the collector stands in for it.
// NOLINTNEXTLINE(bugprone-reserved-identifier)
int __sigaction(int signal_number, const struct sigaction* action,
                struct sigaction* old_action) noexcept;
}

namespace memusage::original {

// The argument names the variable declared: a declarator, which parentheses would not guard.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define MEMUSAGE_DECLARE_ORIGINAL(name) inline decltype(&::name) name = nullptr;
MEMUSAGE_HOOKED_FUNCTIONS(MEMUSAGE_DECLARE_ORIGINAL)
MEMUSAGE_OPTIONAL_FUNCTIONS(MEMUSAGE_DECLARE_ORIGINAL)
#undef MEMUSAGE_DECLARE_ORIGINAL

// Whether the next malloc is the C library's own, which never calls back into ours.
// Another allocator preloaded after us may (one whose malloc is built on aligned_alloc).
inline bool allocator_is_libc = true;

// Looks every function up after us, by the version programs link it by (dlvsym; a
// function libc defines under a version newer than its base one needs that version in
// originals.cpp's table) and by dlsym, and takes whichever comes first. Both may
// allocate: those requests are served by the bootstrap arena below. False if any but the
// optional ones is missing.
bool resolve();

}  // namespace memusage::original

namespace memusage::bootstrap {

// A small static arena for the allocations made before the real allocator is known.
inline constexpr size_t kArenaBytes = size_t{64} * 1024;
extern unsigned char arena[kArenaBytes];

void* allocate(size_t size, size_t alignment = 16);
size_t size_of(const void* p);
// Checked by every free: kept inline.
inline bool owns(const void* p) {
    auto address = reinterpret_cast<uintptr_t>(p);
    auto begin = reinterpret_cast<uintptr_t>(arena);
    return address - begin < kArenaBytes;
}

}  // namespace memusage::bootstrap
