// SPDX-License-Identifier: MIT
// Per-site figures kept in the merged event order, so that the bytes each site held when the
// heap was at its peak are exact, in O(1) per event: a site remembers when it last changed,
// and takes a snapshot of itself only on its first change after the latest peak.
// Touched only by the event stream (under the recorder's lock, or by the one thread recording
// directly): no atomics.
#pragma once

#include <cstdint>

namespace memusage {

// What an event did to its site, in the two high bits of the event's site word; the low
// bits are the block's site tag (below). A word of 0 touches no site (sites off, mmap,
// timer ticks): a tag is never 0, so a word with a tag and no change bits is the fourth
// change, freed_temporary.
enum class SiteChange : uint32_t {
    // one of its blocks was freed before its thread allocated anything after it
    freed_temporary = 0,
    new_block = 1u << 30,  // a block was allocated at the site
    resize = 2u << 30,     // one of its blocks was resized (realloc keeps a block's site)
    freed = 3u << 30,      // one of its blocks was freed
};
inline constexpr uint32_t kSiteIdMask = (1u << 30) - 1;  // the tag: all but the change

// A block's site tag, what its header and its events carry: the stack's id in the low bits
// and, when sites are sampled (sampling.h), the code of the block's weight above them (0 when
// exact). The weight must travel with the block: a free subtracts what the allocation added.
inline constexpr uint32_t kStackIdBits = 20;  // the stack table's ids are below 2^20
inline constexpr uint32_t kStackIdMask = (1u << kStackIdBits) - 1;
inline constexpr uint32_t kWeightCodes = 1u << (30 - kStackIdBits);
inline constexpr uint32_t stack_id_of(uint32_t tag) { return tag & kStackIdMask; }
inline constexpr uint32_t weight_code_of(uint32_t tag) {
    return (tag & kSiteIdMask) >> kStackIdBits;
}
inline constexpr uint32_t site_tag(uint32_t stack_id, uint32_t weight_code) {
    return stack_id | weight_code << kStackIdBits;
}

inline constexpr uint32_t site_word(SiteChange change, uint32_t site) {
    return site == 0 ? 0 : static_cast<uint32_t>(change) | (site & kSiteIdMask);
}

// Sampled sites: realloc changed a block's weight (sampling.h), or let it into the sample.
// The site sees that as an event of its own, recorded just before the resize's, which the
// heap, the peaks and the files never see: its site word is the block's new tag, and its
// heap change carries this flag, the weight code the block had (0: it was not in the
// sample) and the bytes whose weight changed (the block's size before the resize). No heap
// event changes the heap by 2^61 bytes or more.
inline constexpr int64_t kReweighed = int64_t{1} << 61;
inline constexpr int kReweighedCodeShift = 48;
inline constexpr uint64_t kReweighedBytesMask = (uint64_t{1} << kReweighedCodeShift) - 1;
inline constexpr int64_t reweighed_change(uint32_t old_code, uint64_t bytes) {
    return kReweighed | static_cast<int64_t>(old_code) << kReweighedCodeShift |
           static_cast<int64_t>(bytes & kReweighedBytesMask);
}

// Where a block grew: a realloc that made a block larger than it was records the realloc's
// stack (its id in the stack table) in the block's header, and the site figures keep, for
// each pair of a block's site and the stack that last grew it, what the pair's blocks hold.
// The pair learns of its blocks by events of its own, seen only by the site figures: this
// flag in the heap change, with the bytes the block holds (kRegrownBytesMask), the stack
// that grew it in the event's stack word, and the block's tag in the site word. kLeaving:
// the block leaves the pair (resized again, or freed), else it joins it. Recorded before
// the resize's or the free's own event.
inline constexpr int64_t kRegrown = int64_t{1} << 62;
inline constexpr int64_t kLeaving = int64_t{1} << 60;
inline constexpr uint64_t kRegrownBytesMask = (uint64_t{1} << 60) - 1;
inline constexpr int64_t regrown_change(bool leaving, uint64_t bytes) {
    return kRegrown | (leaving ? kLeaving : 0) | static_cast<int64_t>(bytes & kRegrownBytesMask);
}

// A pair's figures (above): a site's blocks last grown by one stack.
struct GrownFigures {
    uint32_t site;      // the blocks' site (a stack id); 0: an empty entry
    uint32_t grown_at;  // the stack of the realloc that last grew them
    int64_t current;    // bytes held now
    int64_t at_peak;    // bytes held at the peak, once the pair changed after it
    int64_t current_blocks;
    int64_t blocks_at_peak_;
    uint64_t changed_at;  // the event that last changed `current`
};

struct SiteFigures {
    uint64_t blocks_allocated;
    uint64_t bytes_allocated;  // new blocks, plus the growth of resizes
    uint64_t blocks_freed;
    uint64_t bytes_freed;    // freed blocks, plus what resizes gave back
    int64_t current;         // bytes held now
    int64_t at_peak;         // bytes held at the peak, once the site changed after it
    uint64_t changed_at;     // the event that last changed `current`
    int64_t current_blocks;  // the same for blocks
    int64_t blocks_at_peak_;
    uint64_t temporary_blocks;  // of blocks_freed, those freed before their thread's next
    uint64_t temporary_bytes;   // allocation, and their bytes
    uint64_t growths;           // realloc calls at this stack that grew a block (kRegrown)

    uint64_t bytes_at_peak(uint64_t peak_at) const {
        int64_t held = changed_at <= peak_at ? current : at_peak;
        return held > 0 ? static_cast<uint64_t>(held) : 0;
    }
    uint64_t blocks_at_peak(uint64_t peak_at) const {
        int64_t held = changed_at <= peak_at ? current_blocks : blocks_at_peak_;
        return held > 0 ? static_cast<uint64_t>(held) : 0;
    }
};

class SiteAccounts {
  public:
    // Room for site ids below `max_sites`; false if the kernel refuses the pages.
    // `sample_interval` 0: exact sites, figures in bytes and blocks. Else sites are sampled
    // (sampling.h) and the figures are weighted estimates, kept in 1/2^kWeightedShift units.
    bool init(uint32_t max_sites, uint64_t sample_interval = 0);
    void release();  // tests

    // One event of the merged stream. `heap_after` is the global heap once it happened.
    // True for a site's own event (kReweighed), which the stream takes back from the heap.
    // The stream passes only the events with a site here (on_heap_peak says the rest): the
    // figures need the order of the sites' changes and the peaks, not a count of events.
    // `stack`: the event's stack word, which a kRegrown event uses for the growing stack.
    bool on_event(uint32_t site_word, int64_t heap_change, uint64_t heap_after,
                  uint64_t stack = 0) {
        ++now_;
        if (__builtin_expect(heap_change >= kReweighed, 0)) {
            if (heap_change >= kRegrown)
                regrow(site_word, heap_change, static_cast<uint32_t>(stack));
            else
                reweigh(site_word, heap_change);
            return true;
        }
        heap_at_end_ = heap_after;
        uint32_t id = stack_id_of(site_word);
        if (id != 0 && id < capacity_)
            change_site(sites_[id], site_word & ~kSiteIdMask, heap_change,
                        weight_code_of(site_word));
        if (heap_after > peak_) {
            peak_ = heap_after;
            peak_at_ = now_;
        }
        return false;
    }

    // An event without a site (none of the figures' own) took the heap to `heap_after`, higher
    // than the stream's peak since the program last reset it: the run's peak, maybe.
    void on_heap_peak(uint64_t heap_after) {
        heap_at_end_ = heap_after;
        if (heap_after > peak_) {
            peak_ = heap_after;
            peak_at_ = now_;
        }
    }
    // The run is over: the heap after its last event, whatever the event.
    void on_end(uint64_t heap_after) { heap_at_end_ = heap_after; }

    uint32_t capacity() const { return capacity_; }
    uint64_t sample_interval() const { return sample_interval_; }
    // Figures as kept: in bytes and blocks when exact, else see in_units.
    const SiteFigures& site(uint32_t id) const { return sites_[id]; }
    uint64_t bytes_at_peak(uint32_t id) const { return sites_[id].bytes_at_peak(peak_at_); }
    uint64_t blocks_at_peak(uint32_t id) const { return sites_[id].blocks_at_peak(peak_at_); }
    uint64_t heap_peak() const { return peak_; }
    // The heap after the latest event, exactly (sampled or not): at exit, what was left.
    uint64_t heap_at_end() const { return heap_at_end_; }
    // A kept figure in bytes or blocks (rounded).
    uint64_t in_units(uint64_t kept) const {
        return shift_ == 0 ? kept : (kept >> shift_) + ((kept >> (shift_ - 1)) & 1);
    }

    static constexpr uint32_t kWeightedShift = 10;

    // The pairs' table (GrownFigures), kGrownPairs entries, empty ones with site 0; and
    // whether a pair found no room (its blocks then say nothing of where they grew).
    static constexpr uint32_t kGrownPairs = 1u << 14;
    const GrownFigures* grown_pairs() const { return grown_; }
    bool grown_pairs_full() const { return grown_full_; }
    uint64_t bytes_at_peak(const GrownFigures& pair) const {
        int64_t held = pair.changed_at <= peak_at_ ? pair.current : pair.at_peak;
        return held > 0 ? static_cast<uint64_t>(held) : 0;
    }
    uint64_t blocks_at_peak(const GrownFigures& pair) const {
        int64_t held = pair.changed_at <= peak_at_ ? pair.current_blocks : pair.blocks_at_peak_;
        return held > 0 ? static_cast<uint64_t>(held) : 0;
    }

  private:
    // A kRegrown event: the block joins or leaves the pair of its site and `grown_at`. The
    // pair is found by open addressing in a table reserved at start: nothing is allocated.
    void regrow(uint32_t word, int64_t change, uint32_t grown_at) {
        uint32_t id = stack_id_of(word);
        if (id == 0 || id >= capacity_ || grown_at == 0 || grown_at >= capacity_ ||
            grown_ == nullptr)
            return;
        const bool leaving = (change & kLeaving) != 0;
        auto bytes = static_cast<int64_t>(static_cast<uint64_t>(change) & kRegrownBytesMask &
                                          ~static_cast<uint64_t>(kLeaving));
        GrownFigures* pair = find_pair(id, grown_at, !leaving);
        if (pair == nullptr) return;
        if (!leaving) ++sites_[grown_at].growths;
        int64_t factor = factor_[weight_code_of(word)];
        int64_t amount;
        if (__builtin_mul_overflow(bytes, factor, &amount)) amount = INT64_MAX / 4;
        if (pair->changed_at <= peak_at_) {
            pair->at_peak = pair->current;
            pair->blocks_at_peak_ = pair->current_blocks;
        }
        pair->current += leaving ? -amount : amount;
        pair->current_blocks += leaving ? -factor : factor;
        pair->changed_at = now_;
    }
    GrownFigures* find_pair(uint32_t site, uint32_t grown_at, bool add) {
        uint32_t mask = kGrownPairs - 1;
        uint32_t at = (site * 0x9e3779b1u ^ grown_at * 0x85ebca77u) & mask;
        for (uint32_t probe = 0; probe < kGrownPairs; ++probe, at = (at + 1) & mask) {
            GrownFigures& pair = grown_[at];
            if (pair.site == site && pair.grown_at == grown_at) return &pair;
            if (pair.site != 0) continue;
            if (!add) return nullptr;
            pair.site = site;
            pair.grown_at = grown_at;
            pair.changed_at = now_;
            return &pair;
        }
        grown_full_ = true;
        return nullptr;
    }

    // A reweighed event: the block's bytes go from their old weight to their new one at its
    // site. What the site holds changes by the difference, booked as allocated when it grew
    // and as freed when it shrank, so that allocated - freed stays what the site holds.
    void reweigh(uint32_t word, int64_t change) {
        uint32_t id = stack_id_of(word);
        if (id == 0 || id >= capacity_) return;
        auto bits = static_cast<uint64_t>(change);
        uint32_t old_code = static_cast<uint32_t>(bits >> kReweighedCodeShift) & (kWeightCodes - 1);
        auto bytes = static_cast<int64_t>(bits & kReweighedBytesMask);
        int64_t new_factor = factor_[weight_code_of(word)];
        int64_t old_factor = old_code == 0 ? 0 : factor_[old_code];
        int64_t amount, blocks = new_factor - old_factor;
        if (__builtin_mul_overflow(bytes, blocks, &amount))
            amount = blocks < 0 ? INT64_MIN / 4 : INT64_MAX / 4;
        SiteFigures& site = sites_[id];
        if (site.changed_at <= peak_at_) {
            site.at_peak = site.current;
            site.blocks_at_peak_ = site.current_blocks;
        }
        site.current += amount;
        site.current_blocks += blocks;
        site.changed_at = now_;
        if (amount >= 0)
            site.bytes_allocated += static_cast<uint64_t>(amount);
        else
            site.bytes_freed += -static_cast<uint64_t>(amount);
        if (blocks >= 0)
            site.blocks_allocated += static_cast<uint64_t>(blocks);
        else
            site.blocks_freed += -static_cast<uint64_t>(blocks);
    }

    void change_site(SiteFigures& site, uint32_t change, int64_t heap_change, uint32_t code) {
        // Exact: a factor of 1 (no product to take). Sampled: the block's weight in fixed point.
        int64_t factor = factor_[code];
        int64_t amount = heap_change;
        if (factor != 1 && __builtin_mul_overflow(heap_change, factor, &amount))
            amount = heap_change < 0 ? INT64_MIN / 4 : INT64_MAX / 4;
        if (site.changed_at <= peak_at_) {
            site.at_peak = site.current;
            site.blocks_at_peak_ = site.current_blocks;
        }
        site.current += amount;
        site.changed_at = now_;
        uint64_t bytes =
            amount >= 0 ? static_cast<uint64_t>(amount) : -static_cast<uint64_t>(amount);
        if (amount >= 0)
            site.bytes_allocated += bytes;
        else
            site.bytes_freed += bytes;
        if (change == static_cast<uint32_t>(SiteChange::new_block)) {
            site.blocks_allocated += static_cast<uint64_t>(factor);
            site.current_blocks += factor;
        }
        if (change == static_cast<uint32_t>(SiteChange::freed) ||
            change == static_cast<uint32_t>(SiteChange::freed_temporary)) {
            site.blocks_freed += static_cast<uint64_t>(factor);
            site.current_blocks -= factor;
        }
        if (change == static_cast<uint32_t>(SiteChange::freed_temporary)) {
            site.temporary_blocks += static_cast<uint64_t>(factor);
            site.temporary_bytes += bytes;
        }
    }

    SiteFigures* sites_ = nullptr;
    GrownFigures* grown_ = nullptr;  // kGrownPairs entries
    bool grown_full_ = false;
    uint32_t capacity_ = 0;
    uint64_t now_ = 0;      // events seen with a site
    uint64_t peak_ = 0;     // the largest heap_after seen
    uint64_t peak_at_ = 0;  // the event that first reached it
    uint64_t heap_at_end_ = 0;
    uint64_t sample_interval_ = 0;
    uint32_t shift_ = 0;  // 0 exact, kWeightedShift sampled
    // Each weight code's factor: 1 for code 0 when exact; weight * 2^kWeightedShift sampled.
    int64_t factor_[kWeightCodes] = {1};
};

}  // namespace memusage
