// SPDX-License-Identifier: MIT
// Building data files in memory for the tests.
#pragma once

#include <memusage/record.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace stat_test {

inline memusage::Record record(uint64_t heap, uint64_t stack, uint64_t time) {
    memusage::Record r{heap, stack, 0, 0};
    r.set_time(time);
    return r;
}

// Header records as the collector writes them at exit.
inline std::vector<memusage::Record> header(uint64_t heap_peak, uint64_t stack_peak,
                                            uint64_t total_peak, uint64_t start, uint64_t end) {
    return {record(0, total_peak, start), record(heap_peak, stack_peak, end)};
}

inline std::span<const std::byte> bytes_of(const std::vector<memusage::Record>& records) {
    return std::as_bytes(std::span(records));
}

}  // namespace stat_test
