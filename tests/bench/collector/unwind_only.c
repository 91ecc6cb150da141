// SPDX-License-Identifier: MIT
// The floor under exact allocation sites, for the sites benchmark: a preloaded library that
// does nothing but what exact sites cannot avoid, one unw_backtrace of the calling stack per
// allocating call (malloc, calloc, realloc), libunwind loaded privately as the collector
// loads it, then glibc's own function. No counting, no header, no interning: what
// memusage --sites costs beyond this and the collector without sites is our own code.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* block, size_t size);

typedef int (*Backtrace)(void** buffer, int size);
static Backtrace backtrace_function;
// libunwind's first unwind on a thread allocates its thread-local cache: that call must
// not unwind again.
static __thread int unwinding;

__attribute__((constructor)) static void load_unwinder(void) {
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library != NULL) backtrace_function = (Backtrace)dlsym(library, "unw_backtrace");
}

// Inlined into each hook, as the collector's capture is: the hook is the only frame of ours.
__attribute__((always_inline)) static inline void unwind(void) {
    if (backtrace_function == NULL || unwinding) return;
    unwinding = 1;
    void* frames[80];  // the collector's room: 64 frames kept + 16 of its own
    backtrace_function(frames, 80);
    __asm__ volatile("" : : "r"(frames) : "memory");
    unwinding = 0;
}

void* malloc(size_t size) {
    unwind();
    return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
    unwind();
    return __libc_calloc(count, size);
}

void* realloc(void* block, size_t size) {
    unwind();
    return __libc_realloc(block, size);
}
