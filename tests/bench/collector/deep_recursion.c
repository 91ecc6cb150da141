// SPDX-License-Identifier: MIT
// A deep-recursion program for the stack peak benchmark: each round recurses through
// frames of FRAME bytes, allocating and freeing a small block at every level, first one
// level deeper each round (a slowly deepening stack, where a capture at every new peak
// would cost the most), then ROUNDS more at the deepest.
//
//   deep_recursion [DEPTH [ROUNDS]]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kFrame = 256 };
static unsigned long checksum;
// Where each block escapes to: without it the compiler may drop a malloc and free pair.
static void* volatile escape;

__attribute__((noinline)) static void level(int left) {
    char frame[kFrame];
    memset(frame, left, sizeof frame);
    char* block = malloc(16 + (unsigned)left % 64);
    block[0] = (char)left;
    escape = block;
    checksum += (unsigned char)block[0] + (unsigned char)frame[left % kFrame];
    free(escape);
    if (left > 0) level(left - 1);
    checksum += (unsigned char)frame[(left + 1) % kFrame];
}

int main(int argc, char** argv) {
    int depth = argc > 1 ? atoi(argv[1]) : 4000;
    long rounds = argc > 2 ? atol(argv[2]) : 1000;
    for (int d = 1; d <= depth; ++d) level(d);
    for (long r = 0; r < rounds; ++r) level(depth);
    printf("%lu\n", checksum);
    return 0;
}
