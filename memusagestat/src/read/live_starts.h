// SPDX-License-Identifier: MIT
// How many of the described blocks alive now (block_replay.h) took their address in each
// stretch of time: counts by the creation's time, in at most kMaxStretches equal stretches
// (two merged into one, the stretch doubled, when time runs past them). At the end of a
// replay it says which stretches can hold the creation of a block still alive, so the
// backward reading of the recording passes over the chunks whose times hold none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memusagestat {

class LiveStarts {
  public:
    // A described block made at `time` (a cycle-counter reading).
    void made(uint64_t time) {
        if (!based_) {
            based_ = true;
            base_ = time;
        }
        const size_t at = stretch(time);
        if (at >= counts_.size()) grow_to(at);
        ++counts_[stretch(time)];
    }
    // The block made at `time` ended (or was found alive at the end). A block this never
    // saw made means the counts no longer tell: known() is false from then on.
    void ended(uint64_t time) {
        const size_t at = based_ ? stretch(time) : SIZE_MAX;
        if (at >= counts_.size() || counts_[at] == 0) {
            known_ = false;
            return;
        }
        --counts_[at];
    }
    bool known() const { return known_; }
    // Whether a block alive may have been made between `first` and `last` (inclusive).
    bool any_between(uint64_t first, uint64_t last) const {
        if (!known_) return true;
        if (!based_ || last < first) return false;
        const size_t from = stretch(first), to = stretch(last);
        for (size_t at = from; at <= to && at < counts_.size(); ++at)
            if (counts_[at] != 0) return true;
        return false;
    }
    void reset() { *this = LiveStarts{}; }
    size_t memory_bytes() const { return counts_.capacity() * sizeof(uint32_t); }

  private:
    static constexpr size_t kMaxStretches = size_t{1} << 16;
    static constexpr unsigned kFirstShift = 16;  // 65,536 cycles, some 20 microseconds

    // Earlier than the first block (threads' chunks interleave out of order): the first.
    size_t stretch(uint64_t time) const {
        return time <= base_ ? 0 : static_cast<size_t>((time - base_) >> shift_);
    }
    void grow_to(size_t at) {
        while (at >= kMaxStretches) {
            for (size_t i = 0; i < counts_.size(); ++i)
                counts_[i / 2] = (i % 2 == 0 ? 0 : counts_[i / 2]) + counts_[i];
            counts_.resize((counts_.size() + 1) / 2);
            ++shift_;
            at /= 2;
        }
        if (at >= counts_.size()) counts_.resize(at + 1, 0);
    }

    bool based_ = false, known_ = true;
    uint64_t base_ = 0;
    unsigned shift_ = kFirstShift;
    std::vector<uint32_t> counts_;
};

}  // namespace memusagestat
