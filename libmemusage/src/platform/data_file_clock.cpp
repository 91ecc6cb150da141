// SPDX-License-Identifier: MIT
#include "platform/data_file_clock.h"

#include <time.h>

#include "platform/clock.h"

#if !defined(__x86_64__) && !defined(__i386__)

namespace memusage {
namespace {

struct Pairing {
    uint64_t stamp = 0;
    uint64_t microseconds = 0;
    double microseconds_per_tick = 1.0;
};
Pairing pairing;

uint64_t realtime_microseconds() {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000 +
           static_cast<uint64_t>(now.tv_nsec) / 1000;
}

// The counter's ticks per second: the architecture states it on aarch64 (cntfrq_el0);
// CLOCK_MONOTONIC is in nanoseconds; the time CSR of riscv64 has a rate only the device
// tree knows, and qemu-user runs it at the host's: measured against CLOCK_MONOTONIC over
// two milliseconds (0.05% at most off from the nanosecond readings' granularity).
double ticks_per_second() {
#if defined(__aarch64__)
    uint64_t frequency;
    asm volatile("mrs %0, cntfrq_el0" : "=r"(frequency));
    if (frequency != 0) return static_cast<double>(frequency);
#endif
#if defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64)
    uint64_t start_ns = monotonic_nanoseconds();
    uint64_t start_ticks = cycle_counter();
    uint64_t now_ns = start_ns;
    while (now_ns - start_ns < 2'000'000) now_ns = monotonic_nanoseconds();
    uint64_t ticks = cycle_counter() - start_ticks;
    return static_cast<double>(ticks) * 1e9 / static_cast<double>(now_ns - start_ns);
#else
    return 1e9;
#endif
}

}  // namespace

void start_data_file_clock(uint64_t stamp) {
    // (No function-local static: its guard would pull the C++ runtime's exception
    // machinery, and the 72 KiB pool it allocates at start-up, into the collector.)
    double rate = ticks_per_second();
    pairing.microseconds_per_tick = rate > 0 ? 1e6 / rate : 1.0;
    pairing.microseconds = realtime_microseconds();
    pairing.stamp = stamp;
}

uint64_t data_file_time(uint64_t stamp) {
    // Stamps of another core may lie a little before the pairing's.
    double ticks = stamp >= pairing.stamp ? static_cast<double>(stamp - pairing.stamp)
                                          : -static_cast<double>(pairing.stamp - stamp);
    return pairing.microseconds +
           static_cast<uint64_t>(static_cast<int64_t>(ticks * pairing.microseconds_per_tick));
}

}  // namespace memusage

#endif
