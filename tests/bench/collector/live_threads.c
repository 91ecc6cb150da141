// SPDX-License-Identifier: MIT
// Many threads alive at once for the collector's memory benchmark: each thread does a few
// malloc/free and then waits until all of them have, so the process's largest resident set
// holds every thread with whatever the collector keeps for it.
//
//   live_threads [THREADS]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_barrier_t all_allocated;

// Where each block goes before it is freed: the compiler may not drop the pair.
static void* volatile last_block;

static void* live_thread(void* size) {
    for (int i = 0; i < 4; ++i) {
        char* block = malloc((size_t)size + (size_t)i);
        if (block != NULL) memset(block, 1, (size_t)size);
        last_block = block;
        free(last_block);
    }
    pthread_barrier_wait(&all_allocated);
    return NULL;
}

int main(int argc, char** argv) {
    long threads = argc > 1 ? atol(argv[1]) : 2000;
    pthread_t* ids = malloc(sizeof(pthread_t) * (size_t)threads);
    if (ids == NULL) return 1;
    pthread_barrier_init(&all_allocated, NULL, (unsigned)threads);
    for (long i = 0; i < threads; ++i) {
        if (pthread_create(&ids[i], NULL, live_thread, (void*)(size_t)(16 + i % 64)) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    for (long i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
    free(ids);
    return 0;
}
