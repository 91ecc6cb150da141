// SPDX-License-Identifier: MIT
/* The first program a new user profiles: its only allocation is stdout's buffer. */
#include <stdio.h>

int main(void) {
    printf("hello, world\n");
    return 0;
}
