// SPDX-License-Identifier: MIT
// A program of many short threads for the collector benchmark: threads created and
// joined one after another, each doing one malloc/free, as thread pools that do not
// pool and short-lived worker threads do. The collector's cost must stay linear in the
// number of threads and its memory flat.
//
//   short_threads [THREADS]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Where each block goes before it is freed: the compiler may not drop the pair.
static void* volatile last_block;

static void* one_pair(void* size) {
    char* block = malloc((size_t)size);
    if (block != NULL) memset(block, 1, (size_t)size);
    last_block = block;
    free(last_block);
    return NULL;
}

int main(int argc, char** argv) {
    long threads = argc > 1 ? atol(argv[1]) : 100000;
    for (long i = 0; i < threads; ++i) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, one_pair, (void*)(size_t)(16 + i % 64)) != 0) {
            perror("pthread_create");
            return 1;
        }
        pthread_join(thread, NULL);
    }
    return 0;
}
