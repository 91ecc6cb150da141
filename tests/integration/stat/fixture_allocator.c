// SPDX-License-Identifier: MIT
// A program with an allocator of its own (as Python's _PyObject_Malloc, HotSpot's os::malloc
// or a project's xmalloc): every site's innermost frame is the same line of pool_alloc, and
// the callers that hold the memory are what tells the sites apart. And two calls on one line,
// which the report counts as one site.
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void* pool_alloc(size_t bytes) {
    void* block = malloc(bytes);  // SITE(pool_alloc)
    memset(block, 0, bytes);
    return block;
}

static void* volatile held[3];
static void* volatile pair[2];

__attribute__((noinline)) void load_names(void) { held[0] = pool_alloc(40000); }
__attribute__((noinline)) void load_index(void) { held[1] = pool_alloc(30000); }
__attribute__((noinline)) void load_cache(void) { held[2] = pool_alloc(20000); }

int main(void) {
    load_names();
    load_index();
    load_cache();
    pair[0] = malloc(100), pair[1] = malloc(200);  // SITE(one_line)
    free(pair[0]);
    free(pair[1]);
    for (int i = 0; i < 3; ++i) free(held[i]);
    return 0;
}
