// SPDX-License-Identifier: MIT
// The live view's model: the figures read once a second, kept for the last minute, and
// what the view shows from them (rates per second, the heap's recent course, the threads
// in the order asked for). No terminal here: the drawing reads it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "memusage/live_format.h"

namespace memusage::live {

enum class ThreadOrder { held, peak, calls, tid };
ThreadOrder next_order(ThreadOrder order);
const char* order_name(ThreadOrder order);

struct ThreadLine {
    uint64_t tid;  // 0: the threads without a row of their own, summed
    std::string name;
    int64_t held, held_peak;
    uint64_t calls;
};

class FigureHistory {
  public:
    static constexpr size_t kSeconds = 60;

    // One reading, taken at the publisher's time in it.
    void add(const live_format::Figures& figures);
    bool empty() const { return readings_.empty(); }
    const live_format::Figures& latest() const { return readings_.back(); }

    // Allocating calls (malloc, calloc, realloc, the aligned family) and the bytes they
    // asked for per second, between the last two readings; 0 with fewer.
    double allocations_per_second() const;
    double bytes_per_second() const;
    // The heap at each reading of the last minute, oldest first.
    std::vector<uint64_t> heap_course() const;
    // The latest reading's threads, named by `name_of` (tid -> name), in `order`.
    std::vector<ThreadLine> threads(ThreadOrder order,
                                    const std::function<std::string(uint64_t)>& name_of) const;

  private:
    double per_second(uint64_t (*measure)(const live_format::Figures&)) const;
    std::deque<live_format::Figures> readings_;
};

// The allocating calls' count and bytes of one reading.
uint64_t allocating_calls(const live_format::Figures& figures);
uint64_t allocated_bytes(const live_format::Figures& figures);

}  // namespace memusage::live
