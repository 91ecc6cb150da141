// SPDX-License-Identifier: MIT
// A multi-threaded program for memusage --attach to take over while it runs: told on its
// standard input, its threads allocate and free without pause ("churn"), stop ("park"), or
// make an exact number of calls each and say how many of each kind they made ("count K"),
// or allocate K blocks each at one stack and keep them ("hold K", freed by "release");
// "heap" tells the bytes in use by mallinfo2, "quit" frees everything and exits with 3.
// Every reply is one line on standard output.
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kThreads = 4, kKept = 64 };
enum Mode { kPark, kChurn, kCount, kHold, kRelease, kQuit };
enum { kMaxHeld = 4096 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static enum Mode mode = kPark;
static unsigned generation = 0;  // a new command
static int rounds = 0;
static int done_threads = 0;
static int parked_threads = 0;

// What the threads did in the last "count": the calls and the bytes they asked for.
static atomic_ullong mallocs, callocs, reallocs, frees, malloc_bytes, calloc_bytes, realloc_growth,
    freed_bytes;

// Blocks each thread keeps from before any attach, freed by "count" (a free of a block the
// collector never saw) and refilled by "churn".
static void* kept[kThreads][kKept];
static volatile char sink;

// The blocks "hold" keeps, each thread's, and how many.
static char* held[kThreads][kMaxHeld];
static int held_count[kThreads];
static atomic_ullong held_blocks, held_bytes;

// One block of 48 + thread bytes at this one stack (hold_blocks, run): the sites report
// names it, and the leak report while it is held.
__attribute__((noinline)) static char* held_block(int thread) {
    char* block = malloc(48 + (size_t)thread);
    block[0] = (char)thread;
    return block;
}

__attribute__((noinline)) static void hold_blocks(int thread, int count) {
    for (int i = 0; i < count && held_count[thread] < kMaxHeld; ++i) {
        held[thread][held_count[thread]++] = held_block(thread);
        atomic_fetch_add(&held_blocks, 1);
        atomic_fetch_add(&held_bytes, 48 + (unsigned)thread);
    }
}

static void release_blocks(int thread) {
    for (int i = 0; i < held_count[thread]; ++i) free(held[thread][i]);
    held_count[thread] = 0;
}

static void churn_once(int thread, unsigned step) {
    size_t size = 16 + (step * 37 + (unsigned)thread * 101) % 4000;
    void* block = malloc(size);
    memset(block, 1, size);
    block = realloc(block, size * 2);
    char* zeroed = calloc(4, size / 4 + 1);
    sink += zeroed[0];
    int slot = (int)(step % kKept);
    free(kept[thread][slot]);
    kept[thread][slot] = block;
    free(zeroed);
    // Work of its own between the calls, as a program does: the allocator is not all it runs.
    unsigned sum = 0;
    for (unsigned i = 0; i < 20000; ++i) sum = sum * 31 + i;
    sink += (char)sum;
}

static void count_rounds(int thread, int count) {
    for (int i = 0; i < count; ++i) {
        size_t size = 64 + (size_t)((i + thread) % 64);
        char* block = malloc(size);
        block[0] = 1;
        char* zeroed = calloc(2, 32);
        sink += zeroed[(size_t)i % 64];  // used, so that the compiler keeps the call
        char* grown = realloc(block, 200);
        grown[199] = 2;
        sink += grown[0];
        free(zeroed);
        free(grown);
        atomic_fetch_add(&mallocs, 1);
        atomic_fetch_add(&malloc_bytes, size);
        atomic_fetch_add(&callocs, 1);
        atomic_fetch_add(&calloc_bytes, 64);
        atomic_fetch_add(&reallocs, 1);
        atomic_fetch_add(&realloc_growth, 200 - size);
        atomic_fetch_add(&frees, 2);
        atomic_fetch_add(&freed_bytes, 200 + 64);
    }
    // Blocks from before: their frees are the C library's alone.
    for (int slot = 0; slot < kKept; ++slot) {
        free(kept[thread][slot]);
        kept[thread][slot] = NULL;
    }
}

static void* run(void* argument) {
    int thread = (int)(intptr_t)argument;
    unsigned seen = 0;
    unsigned step = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (mode == kPark || (mode != kChurn && mode != kQuit && seen == generation)) {
            if (seen != generation) {
                seen = generation;
                ++parked_threads;
                pthread_cond_broadcast(&changed);
            }
            pthread_cond_wait(&changed, &lock);
        }
        enum Mode now = mode;
        unsigned now_generation = generation;
        int count = rounds;
        pthread_mutex_unlock(&lock);
        if (now == kQuit) break;
        if (now == kChurn) {
            churn_once(thread, step++);
            continue;
        }
        if (now == kCount) count_rounds(thread, count);
        if (now == kHold) hold_blocks(thread, count);
        if (now == kRelease) release_blocks(thread);
        pthread_mutex_lock(&lock);
        seen = now_generation;
        ++done_threads;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    for (int slot = 0; slot < kKept; ++slot) free(kept[thread][slot]);
    release_blocks(thread);
    return NULL;
}

static void command(enum Mode next, int count) {
    pthread_mutex_lock(&lock);
    mode = next;
    rounds = count;
    done_threads = 0;
    parked_threads = 0;
    ++generation;
    pthread_cond_broadcast(&changed);
    if (next == kPark)
        while (parked_threads < kThreads) pthread_cond_wait(&changed, &lock);
    if (next == kCount || next == kHold || next == kRelease) {
        while (done_threads < kThreads) pthread_cond_wait(&changed, &lock);
        mode = kPark;  // the threads wait for the next command
    }
    pthread_mutex_unlock(&lock);
}

static size_t heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int thread = 0; thread < kThreads; ++thread)
        for (int slot = 0; slot < kKept; ++slot) kept[thread][slot] = malloc(100 + (size_t)slot);
    pthread_t threads[kThreads];
    for (int thread = 0; thread < kThreads; ++thread)
        pthread_create(&threads[thread], NULL, run, (void*)(intptr_t)thread);
    command(kPark, 0);
    printf("ready %ld\n", (long)getpid());
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        int count = 0;
        if (strcmp(line, "churn\n") == 0) {
            command(kChurn, 0);
            printf("churning\n");
        } else if (strcmp(line, "park\n") == 0) {
            command(kPark, 0);
            printf("parked\n");
        } else if (sscanf(line, "count %d", &count) == 1) {
            atomic_store(&mallocs, 0), atomic_store(&callocs, 0), atomic_store(&reallocs, 0);
            atomic_store(&frees, 0), atomic_store(&malloc_bytes, 0);
            atomic_store(&calloc_bytes, 0), atomic_store(&realloc_growth, 0);
            atomic_store(&freed_bytes, 0);
            command(kCount, count);
            printf("counted malloc %llu %llu calloc %llu %llu realloc %llu %llu free %llu %llu\n",
                   mallocs, malloc_bytes, callocs, calloc_bytes, reallocs, realloc_growth, frees,
                   freed_bytes);
        } else if (sscanf(line, "hold %d", &count) == 1) {
            atomic_store(&held_blocks, 0), atomic_store(&held_bytes, 0);
            command(kHold, count);
            printf("held %llu %llu\n", held_blocks, held_bytes);
        } else if (strcmp(line, "release\n") == 0) {
            command(kRelease, 0);
            printf("released\n");
        } else if (strcmp(line, "heap\n") == 0) {
            printf("heap %zu\n", heap_in_use());
        } else if (strcmp(line, "quit\n") == 0) {
            break;
        }
    }
    pthread_mutex_lock(&lock);
    mode = kQuit;
    ++generation;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    for (int thread = 0; thread < kThreads; ++thread) pthread_join(threads[thread], NULL);
    printf("bye\n");
    return 3;
}
