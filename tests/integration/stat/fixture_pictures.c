// SPDX-License-Identifier: MIT
// Allocations at known lines for the pictures' tests: a pool of small blocks filled by one
// function, a buffer grown by another, a block leaked by a third. Run under the collector
// with MEMUSAGE_SITES, its sites file names these functions in the pictures' legends.
#include <stdlib.h>
#include <string.h>

static void* volatile keep[64];

__attribute__((noinline)) void fill_pool(void) {
    for (int i = 0; i < 64; ++i) keep[i] = malloc(4096);  // SITE(pool)
}

__attribute__((noinline)) void* grow_buffer(void) {
    char* buffer = malloc(100000);  // SITE(buffer)
    memset(buffer, 1, 100000);
    return buffer;
}

__attribute__((noinline)) void leak_block(void) {
    keep[0] = malloc(30000);  // SITE(leak)
}

int main(void) {
    fill_pool();
    void* buffer = grow_buffer();
    free(buffer);
    for (int i = 1; i < 64; ++i) free(keep[i]);
    free(keep[0]);
    leak_block();
    return 0;
}
