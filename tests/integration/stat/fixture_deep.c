// SPDX-License-Identifier: MIT
// An allocation at the bottom of a deep recursion: a stack of the collector's 64 frames,
// more levels than a flame graph of ordinary height has rows for names.
#include <stdlib.h>

static void* volatile kept;

__attribute__((noinline)) void descend(int levels) {
    if (levels == 0)
        kept = malloc(5000);
    else
        descend(levels - 1);
    __asm__ volatile("");  // no tail call: every level keeps its frame
}

int main(void) {
    descend(80);
    return 0;
}
