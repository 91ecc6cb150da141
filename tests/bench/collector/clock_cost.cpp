// SPDX-License-Identifier: MIT
// clock_cost [READS]: nanoseconds per reading of each clock the collector stamps with
// (platform/clock.h): the counter, the counter fenced as the hot path reads it, and
// CLOCK_MONOTONIC; one line each, "<name> <ns per read>", the median of five rounds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "platform/clock.h"

namespace {

template <typename Read>
double nanoseconds_per_read(long reads, Read read) {
    double rounds[5];
    for (double& round : rounds) {
        uint64_t sink = 0;
        uint64_t start = memusage::monotonic_nanoseconds();
        for (long i = 0; i < reads; ++i) sink += read();
        uint64_t elapsed = memusage::monotonic_nanoseconds() - start;
        asm volatile("" : : "r"(sink));  // the readings are used
        round = static_cast<double>(elapsed) / static_cast<double>(reads);
    }
    std::sort(rounds, rounds + 5);
    return rounds[2];
}

}  // namespace

int main(int argc, char** argv) {
    long reads = argc > 1 ? std::atol(argv[1]) : 2'000'000;
    if (reads <= 0) {
        std::fprintf(stderr, "clock_cost: READS must be a positive number\n");
        return 2;
    }
    std::printf("counter %.1f\n", nanoseconds_per_read(reads, memusage::cycle_counter));
    std::printf("ordered_counter %.1f\n",
                nanoseconds_per_read(reads, memusage::ordered_cycle_counter));
    std::printf("clock_gettime %.1f\n",
                nanoseconds_per_read(reads, memusage::monotonic_nanoseconds));
    return 0;
}
