// SPDX-License-Identifier: MIT
// A program whose heap the test steps through, for the live view's tests: it never
// sleeps a fixed time, it waits for files the test makes.
//
//   live_fixture DIR [THREADS]
//
// Starts THREADS threads (default 0); thread i allocates (i + 1) * 4096 + 1000 bytes, shrinks
// them to (i + 1) * 4096 and keeps them. Then writes DIR/ready (holding its pid), and for each
// step N = 1, 2, 3 waits for DIR/stepN, allocates N MiB and keeps it, and writes DIR/doneN.
// Then waits for DIR/quit, frees everything and exits 0.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char* dir;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int threads_holding;
// Where the threads keep their blocks: a block nobody reads may be optimised away.
static void* volatile kept[64];

static void path_of(char* path, size_t size, const char* name) {
    snprintf(path, size, "%s/%s", dir, name);
}

static void wait_for(const char* name) {
    char path[4096];
    path_of(path, sizeof path, name);
    while (access(path, F_OK) != 0) {
        // The test is gone (it removes its directory at the end, passed or not): so is this.
        if (access(dir, F_OK) != 0) _exit(3);
        usleep(10000);
    }
}

static void touch(const char* name) {
    char path[4096];
    path_of(path, sizeof path, name);
    // Without stdio, which would allocate: the heap holds only what the steps keep.
    char text[32];
    int length = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    if (write(fd, text, (size_t)length) != length) abort();
    close(fd);
}

static void* hold(void* arg) {
    // 1000 bytes more, given back by a shrinking realloc: the thread's row holds what its
    // calls hold, a shrinking resize giving back its part.
    size_t bytes = ((size_t)arg + 1) * 4096;
    char* block = realloc(malloc(bytes + 1000), bytes);
    memset(block, 1, bytes);
    kept[(size_t)arg] = block;
    pthread_mutex_lock(&lock);
    ++threads_holding;
    pthread_mutex_unlock(&lock);
    wait_for("quit");
    free(block);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    dir = argv[1];
    // The main thread's row names it by the kernel's name for it, which is the emulator's
    // when a board's build runs under qemu-user: it names itself.
    prctl(PR_SET_NAME, "live_fixture");
    long thread_count = argc > 2 ? atol(argv[2]) : 0;
    pthread_t threads[64];
    if (thread_count > 64) return 2;
    for (long i = 0; i < thread_count; ++i) pthread_create(&threads[i], NULL, hold, (void*)i);
    for (;;) {
        pthread_mutex_lock(&lock);
        int holding = threads_holding;
        pthread_mutex_unlock(&lock);
        if (holding == thread_count) break;
        usleep(1000);
    }
    touch("ready");
    char* blocks[3];
    for (int step = 1; step <= 3; ++step) {
        char name[16];
        snprintf(name, sizeof name, "step%d", step);
        wait_for(name);
        blocks[step - 1] = malloc((size_t)step << 20);
        memset(blocks[step - 1], 1, (size_t)step << 20);
        snprintf(name, sizeof name, "done%d", step);
        touch(name);
    }
    wait_for("quit");
    for (int step = 0; step < 3; ++step) free(blocks[step]);
    for (long i = 0; i < thread_count; ++i) pthread_join(threads[i], NULL);
    return 0;
}
