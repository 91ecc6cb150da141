// SPDX-License-Identifier: MIT
// A program whose main thread ends with pthread_exit, leaving the process to the thread it
// started: the process ends when that thread does, and the collector's own publisher
// thread must not keep it alive.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void* work(void* unused) {
    (void)unused;
    char* block = malloc(1000);
    memset(block, 1, 1000);
    free(block);
    return NULL;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, work, NULL);
    pthread_detach(thread);
    pthread_exit(NULL);
}
