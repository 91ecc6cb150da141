// SPDX-License-Identifier: MIT
/* A program whose heap use is known: 1000 blocks of 1000 bytes allocated, then freed,
   so the heap climbs to 1,000,000 bytes at the middle of its 2000 events. */
#include <stdlib.h>

int main(void) {
    enum { kBlocks = 1000, kSize = 1000 };
    static void* blocks[kBlocks];
    for (int i = 0; i < kBlocks; ++i) blocks[i] = malloc(kSize);
    for (int i = 0; i < kBlocks; ++i) free(blocks[i]);
    return 0;
}
