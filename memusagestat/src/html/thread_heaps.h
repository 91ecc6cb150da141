// SPDX-License-Identifier: MIT
// Each thread's share of the heap over the run, for the report's `threads` (web/DATA.md):
// a thread holds the blocks it allocated until they are freed, whoever frees them (a resize
// keeps the block's thread, as the block replay does). Counted over every event, so the
// figures stay exact when the report's events are thinned; each thread's curve is kept as
// the lowest, highest and last heap of each of a fixed number of time buckets.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "read/events_reader.h"

namespace memusagestat {

class ThreadHeaps {
  public:
    // `seconds`: the run's length, over which the buckets are laid.
    explicit ThreadHeaps(double seconds) : seconds_(seconds > 0 ? seconds : 1) {}

    // An allocating call (allocate or resize) of `thread`; `owner` is the block's thread,
    // `size` the block's new size, `asked` the bytes the call asked of the heap as the text
    // summary counts them (a resize: its growth).
    void allocated(uint32_t thread, uint32_t owner, uint64_t size, uint64_t asked, double time);
    // A block of `owner` ended (freed, or resized away); `thread` made the call, if a free.
    void ended(uint32_t owner, uint64_t size, double time);
    void freed_by(uint32_t thread);

    // The figures of `serial` as DATA.md's thread members (allocations, bytes, frees, peak,
    // series); nothing when the thread made no call.
    void describe(uint32_t serial, nlohmann::json& thread) const;

    static constexpr int kBuckets = 1000;

  private:
    struct Point {
        double time;
        int64_t heap;
    };
    struct Bucket {
        Point low, high, last;
    };
    struct Figures {
        uint64_t allocations = 0, bytes = 0, frees = 0;
        int64_t heap = 0, peak = 0;
        std::map<int, Bucket> buckets;  // by bucket number; only the buckets with changes
        Bucket* last_bucket = nullptr;  // the latest changed, and its number
        int last_number = -1;
    };
    void changed(Figures& figures, double time);
    // Events come in runs of one thread: one lookup a run (the map's nodes never move).
    Figures& figures_of(uint32_t serial) {
        if (last_ == nullptr || serial != last_serial_) {
            last_serial_ = serial;
            last_ = &threads_[serial];
        }
        return *last_;
    }

    double seconds_;
    std::map<uint32_t, Figures> threads_;
    uint32_t last_serial_ = 0;
    Figures* last_ = nullptr;
};

}  // namespace memusagestat
