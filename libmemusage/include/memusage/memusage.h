// SPDX-License-Identifier: MIT
/* memusage's in-process API: a program asks the collector, while it runs, how much
 * heap it uses. Every function works without the collector too: the program then runs
 * normally and memusage_tracking() says that nothing is tracked.
 *
 *     #include <memusage/memusage.h>
 *
 *     memusage_reset_peak();
 *     parse_everything();
 *     printf("parsing needed %zu bytes at most\n", memusage_peak() - memusage_current());
 *
 * Build as usual (pkg-config memusage, or find_package(memusage) and memusage::api);
 * no library is linked. Run under `memusage ./prog` or with LD_PRELOAD=libmemusage.so
 * to get real figures.
 *
 * Figures are those of the summary: the heap is the bytes the program asked for and
 * has not freed (malloc, calloc, realloc, the aligned functions; mmap too under -m).
 * None of these functions may be called from a signal handler. MIT licence. */
#ifndef MEMUSAGE_MEMUSAGE_H
#define MEMUSAGE_MEMUSAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called after every change of the heap with the heap's new size. It runs outside
 * the collector's locks and never recursively (changes made while it runs do not call
 * it again); it may call the functions of this header but must not allocate or free
 * memory: those calls would not be counted. */
typedef void (*memusage_heap_callback)(void* cookie, size_t current_bytes);

/* The collector's entry points, declared weak: without the collector they are null,
 * and the inline functions below answer "not tracked" instead of calling them. */
extern int memusage_collector_tracking(void) __attribute__((weak));
extern size_t memusage_collector_current(void) __attribute__((weak));
extern size_t memusage_collector_peak(void) __attribute__((weak));
extern void memusage_collector_reset_peak(void) __attribute__((weak));
extern uint64_t memusage_collector_total_bytes(void) __attribute__((weak));
extern uint64_t memusage_collector_total_calls(void) __attribute__((weak));
extern size_t memusage_collector_stack_peak(void) __attribute__((weak));
extern int memusage_collector_print_summary(int fd) __attribute__((weak));
extern int memusage_collector_set_callback(memusage_heap_callback callback, void* cookie)
    __attribute__((weak));

/* 1 when the collector counts this process, 0 otherwise (not preloaded, or
 * MEMUSAGE_PROG_NAME names another program). */
static inline int memusage_tracking(void) {
    return memusage_collector_tracking ? memusage_collector_tracking() : 0;
}

/* Bytes the heap holds now, across all threads. 0 when not tracked. */
static inline size_t memusage_current(void) {
    return memusage_collector_current ? memusage_collector_current() : 0;
}

/* The largest the heap has been since the start or the last memusage_reset_peak().
 * The summary's heap peak stays the whole run's. 0 when not tracked. */
static inline size_t memusage_peak(void) {
    return memusage_collector_peak ? memusage_collector_peak() : 0;
}

/* Starts a new peak at the current heap size: memusage_peak() around a phase. */
static inline void memusage_reset_peak(void) {
    if (memusage_collector_reset_peak) memusage_collector_reset_peak();
}

/* Every byte asked of the heap so far (the summary's "heap total"). 0 when not tracked. */
static inline uint64_t memusage_total_bytes(void) {
    return memusage_collector_total_bytes ? memusage_collector_total_bytes() : 0;
}

/* Allocation calls so far: malloc, calloc, realloc and the aligned functions, failed
 * ones included (free is not an allocation). 0 when not tracked. */
static inline uint64_t memusage_total_calls(void) {
    return memusage_collector_total_calls ? memusage_collector_total_calls() : 0;
}

/* The deepest any thread's stack has gone so far, in bytes, as the summary measures
 * it (at allocation calls and timer ticks). 0 when not tracked. */
static inline size_t memusage_stack_peak(void) {
    return memusage_collector_stack_peak ? memusage_collector_stack_peak() : 0;
}

/* Writes the summary as it stands now to `fd` (-1: the standard error the program
 * started with). Returns 0, or -1 when not tracked. */
static inline int memusage_print_summary(int fd) {
    return memusage_collector_print_summary ? memusage_collector_print_summary(fd) : -1;
}

/* Installs `callback` (null removes it). Returns 0, or -1 when not tracked. */
static inline int memusage_set_callback(memusage_heap_callback callback, void* cookie) {
    return memusage_collector_set_callback ? memusage_collector_set_callback(callback, cookie) : -1;
}

#ifdef __cplusplus
}
#endif

#endif /* MEMUSAGE_MEMUSAGE_H */
