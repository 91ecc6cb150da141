// SPDX-License-Identifier: MIT
// An allocation-heavy program for the collector benchmark: each thread keeps a pool
// of live blocks and replaces a random one per step with a block of another small
// size, writing into it as real programs write into what they allocate.
//
// IDLE more threads allocate once and then wait for the end, as a program's helper
// threads do beside its busy one.
//
//   alloc_churn [THREADS [STEPS_PER_THREAD [IDLE]]]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kPoolSize = 4096 };
static long steps = 4000000;

static void* churn(void* seed_arg) {
    unsigned long state = 0x9e3779b97f4a7c15UL * ((unsigned long)(size_t)seed_arg + 1);
    void** pool = calloc(kPoolSize, sizeof(void*));
    unsigned long checksum = 0;
    for (long i = 0; i < steps; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        size_t slot = state % kPoolSize;
        free(pool[slot]);
        // Mostly small sizes, now and then a larger one, as in string- and node-heavy code.
        size_t size = (state >> 32) % 8 == 0 ? 256 + (state >> 40) % 768 : 8 + (state >> 40) % 120;
        char* block = malloc(size);
        memset(block, (int)i, size);
        checksum += (unsigned char)block[size / 2];
        pool[slot] = block;
    }
    for (size_t slot = 0; slot < kPoolSize; ++slot) free(pool[slot]);
    free(pool);
    return (void*)checksum;
}

static pthread_mutex_t end_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t end_signal = PTHREAD_COND_INITIALIZER;
static int ended = 0;

static void* idle(void* unused) {
    (void)unused;
    void* volatile block = malloc(64);  // volatile: a compiler drops a malloc freed at once
    free(block);
    pthread_mutex_lock(&end_lock);
    while (!ended) pthread_cond_wait(&end_signal, &end_lock);
    pthread_mutex_unlock(&end_lock);
    return NULL;
}

int main(int argc, char** argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (argc > 2) steps = atol(argv[2]);
    int idle_threads = argc > 3 ? atoi(argv[3]) : 0;
    if (threads < 1 || threads > 64 || steps < 1 || idle_threads < 0 || idle_threads > 64) {
        fprintf(stderr, "usage: alloc_churn [THREADS (1-64) [STEPS_PER_THREAD [IDLE (0-64)]]]\n");
        return 2;
    }
    pthread_t idlers[64];
    for (int t = 0; t < idle_threads; ++t) pthread_create(&idlers[t], NULL, idle, NULL);
    int failed = 0;
    if (threads == 1) {
        failed = churn(0) == (void*)1;  // in the main thread: the plain case
    } else {
        pthread_t workers[64];
        for (int t = 0; t < threads; ++t)
            pthread_create(&workers[t], NULL, churn, (void*)(size_t)t);
        for (int t = 0; t < threads; ++t) pthread_join(workers[t], NULL);
    }
    pthread_mutex_lock(&end_lock);
    ended = 1;
    pthread_cond_broadcast(&end_signal);
    pthread_mutex_unlock(&end_lock);
    for (int t = 0; t < idle_threads; ++t) pthread_join(idlers[t], NULL);
    return failed;
}
