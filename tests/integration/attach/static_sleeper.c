// SPDX-License-Identifier: MIT
// A statically linked program that waits to be killed: memusage --attach refuses it.
#include <stdio.h>
#include <unistd.h>

int main(void) {
    printf("ready\n");
    fflush(stdout);
    for (;;) pause();
}
