// SPDX-License-Identifier: MIT
// Writes a synthetic event recording of N events for the pictures' benchmark: two threads,
// a pool of small blocks churning in one region, growing buffers moved by realloc in
// another far above it, a leak now and then, sites 2-9, a chunk every 4096 events.
//   make_events N FILE
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "events_file_builder.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_events N FILE\n");
        return 2;
    }
    const uint64_t n = std::strtoull(argv[1], nullptr, 10);
    events_test::EventsFileBuilder recording(memusage::events_format::kHasSites, 1234);
    std::mt19937_64 random(42);
    constexpr uint64_t kPool = 0x555555550000, kSlots = 1 << 14, kSlotSize = 128;
    constexpr uint64_t kBuffers = 0x7f0000000000;
    std::vector<bool> used(kSlots, false);
    std::vector<uint64_t> buffer_size(16, 0);
    uint64_t time = 1000, leaks = 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (i % 4096 == 0) {
            recording.clock(time, time * 3);
            const uint32_t thread = (i / 4096) % 4 == 3 ? 2 : 1;
            recording.thread(thread, 100 + thread);
            if (i == 0) recording.thread_name(1, "main");
        }
        time += 1 + random() % 8;
        const uint64_t what = random() % 100;
        if (what < 96) {
            const uint64_t slot = random() % kSlots;
            const uint64_t address = kPool + slot * kSlotSize;
            if (used[slot])
                recording.release(time, address);
            else
                recording.allocate(time, address, 16 + random() % (kSlotSize - 16),
                                   2 + static_cast<uint32_t>(slot % 4));
            used[slot] = !used[slot];
        } else if (what < 99) {
            const uint64_t b = random() % buffer_size.size();
            const uint64_t address = kBuffers + b * (64 << 20);
            if (buffer_size[b] == 0 || buffer_size[b] >= (32 << 20)) {
                if (buffer_size[b] != 0) recording.release(time, address);
                buffer_size[b] = 4096;
                recording.allocate(time, address, buffer_size[b], 6 + static_cast<uint32_t>(b % 3));
            } else {
                recording.resize(time, address, address, buffer_size[b] * 2);
                buffer_size[b] *= 2;
            }
        } else {
            recording.allocate(time, kPool + kSlots * kSlotSize + 4096 + leaks++ * 1024, 1000, 9);
        }
    }
    recording.trailer(time + 10, (time + 10) * 3);
    return recording.write(argv[2]) ? 0 : 1;
}
