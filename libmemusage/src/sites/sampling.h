// SPDX-License-Identifier: MIT
// Sampled allocation sites (MEMUSAGE_SITES_SAMPLE): which blocks get a stack, and the weight
// each sampled block stands for. Bytes are sampled as a Poisson process with one point every
// `interval` bytes on average, as tcmalloc and jemalloc do: a block of n bytes holds a point
// with probability p = 1 - exp(-n / interval), and counts as 1/p blocks. The weight travels
// in the block's site tag as a 10-bit code (site_accounts.h), and a code stands for one exact
// weight: a sample is kept with probability (1/weight) / p, which makes its probability of
// being kept exactly 1/weight, so the estimates stay unbiased (at most 2.2% of the samples
// are let go for it). A block of at least `interval` bytes is always sampled, with weight 1:
// it counts as itself. A block's weight follows its size: realloc gives a sampled block the
// weight of its new size, and lets a block outside the sample in with the probability that
// makes its chance of being in the sample that of a block allocated at its new size.
#pragma once

#include <cstdint>

#include "platform/config.h"

namespace memusage::sampling {

// Code 0: exact sites, weight 1, figures in bytes. Code c >= 1: weight 2^((c - 1) / 32).
inline constexpr uint32_t kCodesPerDoubling = 32;
inline constexpr uint32_t kMaxCode = 1023;
// The largest interval whose one-byte blocks still have a code (their weight is about the
// interval): 1 GiB, far below 2^31.9.
inline constexpr uint64_t kMaxInterval = kMaxSampleInterval;
inline constexpr uint64_t kDefaultInterval = uint64_t{512} * 1024;
// The code of weight 1: a block of at least the interval, always sampled.
inline constexpr uint32_t kUnitCode = 1;

double weight_of_code(uint32_t code);

struct Choice {
    uint32_t code;  // the weight the block gets if kept
    double keep;    // the probability of keeping it
};
// For a block of `size` bytes that holds a point of the process (one of at least
// `interval` bytes: always kept, weight 1).
Choice choose(uint64_t size, uint64_t interval);
// The probability that a block of `size` bytes is in the sample: 1 / its code's weight.
double inclusion(uint64_t size, uint64_t interval);
// The probability that a range of `bytes` holds a point of the process.
double holds_point(uint64_t bytes, uint64_t interval);

// A small per-thread generator (xorshift64*): no lock, no allocation. Never seeded with 0.
struct Generator {
    uint64_t state;
    uint64_t next() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545f4914f6cdd1dULL;
    }
    double uniform() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }  // (0, 1]
};
// Bytes to the next point: exponential with mean `interval`, at least 1.
int64_t next_countdown(Generator& generator, uint64_t interval);
// A well-mixed seed for stream `stream` of `base` (splitmix64), never 0.
uint64_t seed_for(uint64_t base, uint64_t stream);

}  // namespace memusage::sampling
