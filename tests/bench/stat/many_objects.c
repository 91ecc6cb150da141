// SPDX-License-Identifier: MIT
// A program for the analysis benchmark, shaped like an interpreter building and dropping a
// large structure: each round allocates OBJECTS blocks (16-128 bytes), each from one of
// 16,384 call stacks about 40 frames deep (a recursion, then seven levels of four functions
// whose calls go through inlined code, so one return address names two functions), with a
// temporary block allocated and freed beside each; then frees them in a scattered order.
// Four events an object a round: the default (4 million objects, 3 rounds) makes about
// 48 million events, a sites file of about 6.5 MB and a peak of a few hundred MiB.
//
//   many_objects [OBJECTS [ROUNDS]]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { kRecursion = 28 };

static unsigned long checksum;
// Where each temporary block escapes to: without it the compiler may drop a malloc and free
// pair.
static void* volatile escape;
// What keeps each call a call: without a use after it the compiler would make tail calls,
// and the frames would be gone from the stacks.
#define KEEP_FRAME(p)                     \
    ({                                    \
        void* kept_ = (p);                \
        checksum += (uintptr_t)kept_ & 1; \
        kept_;                            \
    })

#define LEVEL(n, next)                                                                       \
    __attribute__((noinline)) static void* next##_0(unsigned code, size_t size);             \
    __attribute__((noinline)) static void* next##_1(unsigned code, size_t size);             \
    __attribute__((noinline)) static void* next##_2(unsigned code, size_t size);             \
    __attribute__((noinline)) static void* next##_3(unsigned code, size_t size);             \
    static inline __attribute__((always_inline)) void* pick##n(unsigned code, size_t size) { \
        switch ((code >> (2 * (n))) & 3) {                                                   \
            case 0:                                                                          \
                return KEEP_FRAME(next##_0(code, size));                                     \
            case 1:                                                                          \
                return KEEP_FRAME(next##_1(code, size));                                     \
            case 2:                                                                          \
                return KEEP_FRAME(next##_2(code, size));                                     \
            default:                                                                         \
                return KEEP_FRAME(next##_3(code, size));                                     \
        }                                                                                    \
    }

#define VARIANTS(name, n)                                                         \
    __attribute__((noinline)) static void* name##_0(unsigned code, size_t size) { \
        return KEEP_FRAME(pick##n(code, size));                                   \
    }                                                                             \
    __attribute__((noinline)) static void* name##_1(unsigned code, size_t size) { \
        return KEEP_FRAME(pick##n(code, size + 1));                               \
    }                                                                             \
    __attribute__((noinline)) static void* name##_2(unsigned code, size_t size) { \
        return KEEP_FRAME(pick##n(code, size + 2));                               \
    }                                                                             \
    __attribute__((noinline)) static void* name##_3(unsigned code, size_t size) { \
        return KEEP_FRAME(pick##n(code, size + 3));                               \
    }

// The innermost level allocates at one of four calls.
static inline __attribute__((always_inline)) void* pick6(unsigned code, size_t size) {
    switch ((code >> 12) & 3) {
        case 0:
            return KEEP_FRAME(malloc(size));
        case 1:
            return KEEP_FRAME(malloc(size + 4));
        case 2:
            return KEEP_FRAME(malloc(size + 8));
        default:
            return KEEP_FRAME(malloc(size + 12));
    }
}

LEVEL(0, parse_expression)
LEVEL(1, build_node)
LEVEL(2, intern_value)
LEVEL(3, make_container)
LEVEL(4, grow_table)
LEVEL(5, new_object)
VARIANTS(new_object, 6)
VARIANTS(grow_table, 5)
VARIANTS(make_container, 4)
VARIANTS(intern_value, 3)
VARIANTS(build_node, 2)
VARIANTS(parse_expression, 1)

__attribute__((noinline)) static void* evaluate(int depth, unsigned code, size_t size) {
    if (depth > 0) return KEEP_FRAME(evaluate(depth - 1, code, size));
    return KEEP_FRAME(pick0(code, size));
}

static uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}

static size_t gcd(size_t a, size_t b) {
    while (b != 0) {
        size_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

__attribute__((noinline)) static void round_of(void** objects, size_t count, unsigned round) {
    for (size_t i = 0; i < count; ++i) {
        const uint32_t hash = mix((uint32_t)i * 3 + round);
        objects[i] = evaluate(kRecursion, hash & 0x3fff, 16 + (hash >> 14) % 101);
        char* temporary = malloc(24 + (hash >> 20) % 64);
        temporary[0] = (char)i;
        escape = temporary;
        checksum += (unsigned char)temporary[0];
        free(escape);
    }
    // Scattered: a stride with no common divisor with the count visits every object once.
    size_t stride = 7919;
    while (gcd(stride, count) != 1) stride += 2;
    for (size_t i = 0; i < count; ++i) free(objects[(i * stride) % count]);
}

int main(int argc, char** argv) {
    const size_t count = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000;
    const unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 3;
    void** objects = malloc((count ? count : 1) * sizeof *objects);
    if (objects == NULL) return 1;
    for (unsigned round = 0; round < rounds; ++round) round_of(objects, count, round);
    free(objects);
    printf("%lu\n", checksum);
    return 0;
}
