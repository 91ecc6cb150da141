// SPDX-License-Identifier: MIT
// Writes a synthetic data file of N events, the shape of a long allocation-heavy run:
// a heap that grows in waves with noise, a stack that breathes, time always advancing.
// Used by the benchmark, so that it needs neither the collector nor a long run.
#include <memusage/record.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s EVENTS OUTFILE\n", argv[0]);
        return 1;
    }
    const unsigned long long events = std::strtoull(argv[1], nullptr, 10);
    std::FILE* out = std::fopen(argv[2], "wb");
    if (out == nullptr) {
        std::perror(argv[2]);
        return 1;
    }
    std::vector<memusage::Record> buffer;
    buffer.reserve(65536);
    uint64_t heap = 0, heap_peak = 0, stack_peak = 0, total_peak = 0, time = 1000;
    uint64_t noise = 88172645463325252ull;
    memusage::Record header[2] = {};
    std::fwrite(header, sizeof header, 1, out);  // completed below, as the collector does
    for (unsigned long long i = 0; i < events; ++i) {
        noise ^= noise << 13, noise ^= noise >> 7, noise ^= noise << 17;  // xorshift64
        const uint64_t wave = (i / 50000) % 2 == 0;
        if (wave || heap < 4096)
            heap += noise % 4096;
        else
            heap -= std::min<uint64_t>(heap, noise % 4096);
        const uint64_t stack = 512 + (noise >> 20) % 8192;
        time += 50 + (noise >> 40) % 100;
        memusage::Record r{heap, stack, 0, 0};
        r.set_time(time);
        buffer.push_back(r);
        heap_peak = std::max(heap_peak, heap);
        stack_peak = std::max(stack_peak, stack);
        total_peak = std::max(total_peak, heap + stack);
        if (buffer.size() == buffer.capacity()) {
            std::fwrite(buffer.data(), sizeof(memusage::Record), buffer.size(), out);
            buffer.clear();
        }
    }
    std::fwrite(buffer.data(), sizeof(memusage::Record), buffer.size(), out);
    header[0] = {0, total_peak, 0, 0};
    header[0].set_time(1000);
    header[1] = {heap_peak, stack_peak, 0, 0};
    header[1].set_time(time);
    std::fseek(out, 0, SEEK_SET);
    std::fwrite(header, sizeof header, 1, out);
    return std::fclose(out) == 0 ? 0 : 1;
}
