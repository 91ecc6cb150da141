// An allocation-heavy program for the collector benchmark: each thread keeps a pool
// of live blocks and replaces a random one per step with a block of another small
// size, writing into it as real programs write into what they allocate.
//
//   alloc_churn [THREADS [STEPS_PER_THREAD]]
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

int main(int argc, char** argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (argc > 2) steps = atol(argv[2]);
    if (threads < 1 || threads > 64 || steps < 1) {
        fprintf(stderr, "usage: alloc_churn [THREADS (1-64) [STEPS_PER_THREAD]]\n");
        return 2;
    }
    if (threads == 1) return churn(0) == (void*)1;  // no extra thread: the plain case
    pthread_t workers[64];
    for (int t = 0; t < threads; ++t) pthread_create(&workers[t], NULL, churn, (void*)(size_t)t);
    for (int t = 0; t < threads; ++t) pthread_join(workers[t], NULL);
    return 0;
}
