// SPDX-License-Identifier: MIT
// A program holding blocks at two sites the test knows by name, for the live view's sites
// table; stepped by files as live_fixture.c.
//
//   sites_fixture DIR
//
// Writes DIR/ready (holding its pid). On DIR/step1: hold_big_buffer keeps one block of
// 3 MiB and hold_small_tables four of 100000 bytes; writes DIR/done1. On DIR/step2:
// hold_small_tables keeps 20 more of 250000 bytes (5400000 in 24 blocks, now the most);
// writes DIR/done2. On DIR/quit: frees everything and exits 0.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* dir;
// Where the blocks are kept: a block nobody reads may be optimised away.
static void* volatile kept[32];
static int kept_count;

static void wait_for(const char* name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    while (access(path, F_OK) != 0) {
        if (access(dir, F_OK) != 0) _exit(3);  // the test is gone
        usleep(10000);
    }
}

static void touch(const char* name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char text[32];  // without stdio, which would allocate
    int length = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    if (write(fd, text, (size_t)length) != length) abort();
    close(fd);
}

// Each a site of its own: not inlined, and the call to malloc not a tail call.
__attribute__((noinline)) static void hold_big_buffer(size_t bytes) {
    char* block = malloc(bytes);  // site: big
    memset(block, 1, bytes);
    kept[kept_count++] = block;
}

__attribute__((noinline)) static void hold_small_tables(int count, size_t bytes) {
    for (int i = 0; i < count; ++i) {
        char* block = malloc(bytes);  // site: small
        memset(block, 2, bytes);
        kept[kept_count++] = block;
    }
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    dir = argv[1];
    touch("ready");
    wait_for("step1");
    hold_big_buffer(3 << 20);
    hold_small_tables(4, 100000);
    touch("done1");
    wait_for("step2");
    hold_small_tables(20, 250000);
    touch("done2");
    wait_for("quit");
    for (int i = 0; i < kept_count; ++i) free(kept[i]);
    return 0;
}
