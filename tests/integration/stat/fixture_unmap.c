// SPDX-License-Identifier: MIT
/* The heap climbs to 1,000,000 bytes in 1000 blocks, then the program maps and unmaps
   anonymous memory: glibc's collector with -m counts the unmapping but not the mapping,
   and its heap counter goes below zero, where it wraps. */
#include <stdlib.h>
#include <sys/mman.h>

int main(void) {
    enum { kBlocks = 1000, kSize = 1000, kMap = 1 << 20 };
    static void* blocks[kBlocks];
    for (int i = 0; i < kBlocks; ++i) blocks[i] = malloc(kSize);
    for (int i = 0; i < 2; ++i) {
        void* map = mmap(NULL, kMap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map != MAP_FAILED) munmap(map, kMap);
    }
    for (int i = 0; i < kBlocks; ++i) free(blocks[i]);
    return 0;
}
