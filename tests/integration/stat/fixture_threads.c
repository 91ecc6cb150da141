// SPDX-License-Identifier: MIT
// Two threads holding blocks at once, each freeing its own: a block map coloured by thread
// shows two colours. (glibc's pthread_create keeps a small block of its own: not leak-free.)
#include <pthread.h>
#include <stdlib.h>

enum { kBlocks = 64, kSize = 4096 };

static void hold_and_free(void) {
    void* blocks[kBlocks];
    for (int i = 0; i < kBlocks; ++i) blocks[i] = malloc(kSize);
    for (int i = 0; i < kBlocks; ++i) free(blocks[i]);
}

static void* worker(void* unused) {
    (void)unused;
    hold_and_free();
    return NULL;
}

int main(void) {
    void* held[kBlocks];
    for (int i = 0; i < kBlocks; ++i) held[i] = malloc(kSize);
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, NULL) != 0) return 1;
    pthread_join(thread, NULL);
    hold_and_free();
    for (int i = 0; i < kBlocks; ++i) free(held[i]);
    return 0;
}
