// SPDX-License-Identifier: MIT
// The collector's hot path on the two ways glibc's malloc serves a call, for the pieces
// benchmark (bench_pieces.sh): each step frees a block of a small pool and allocates
// another in its place (two calls), writing one byte into it.
//   fast: 16 to 64 bytes, a pool of 8 blocks: glibc's per-thread cache serves every call.
//   slow: 1100 to 4000 bytes, a pool of 1024 blocks: above the cache's and the fast bins'
//         largest sizes, so every call goes through glibc's bins.
//
//   hot_path fast|slow STEPS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    long steps = argc > 2 ? atol(argv[2]) : 0;
    int fast = argc > 1 && strcmp(argv[1], "fast") == 0;
    if (argc != 3 || (!fast && strcmp(argv[1], "slow") != 0) || steps < 1) {
        fprintf(stderr, "usage: hot_path fast|slow STEPS\n");
        return 2;
    }
    size_t pool_size = fast ? 8 : 1024, smallest = fast ? 16 : 1100, range = fast ? 49 : 2901;
    char** pool = calloc(pool_size, sizeof(char*));
    unsigned long state = 0x9e3779b97f4a7c15UL, checksum = 0;
    for (long i = 0; i < steps; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        size_t slot = state % pool_size;
        free(pool[slot]);
        pool[slot] = malloc(smallest + (state >> 32) % range);
        pool[slot][0] = (char)i;
        checksum += (unsigned char)pool[slot][0];
    }
    for (size_t slot = 0; slot < pool_size; ++slot) free(pool[slot]);
    free(pool);
    return checksum == 1;  // keeps the writes
}
