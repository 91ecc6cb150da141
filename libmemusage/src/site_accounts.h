// Per-site figures kept in the merged event order, so that the bytes each site held when the
// heap was at its peak are exact, in O(1) per event: a site remembers when it last changed,
// and takes a snapshot of itself only on its first change after the latest peak.
// Touched only by the event stream (under the recorder's lock, or by the one thread recording
// directly): no atomics.
#pragma once

#include <cstdint>

namespace memusage {

// What an event did to its site, in the two high bits of the event's site word; the low
// bits are the site's id. A word of 0 touches no site (sites off, mmap, timer ticks).
enum class SiteChange : uint32_t {
    new_block = 1u << 30,  // a block was allocated at the site
    resize = 2u << 30,     // one of its blocks was resized (realloc keeps a block's site)
    freed = 3u << 30,      // one of its blocks was freed
};
inline constexpr uint32_t kSiteIdMask = (1u << 30) - 1;

inline constexpr uint32_t site_word(SiteChange change, uint32_t site) {
    return site == 0 ? 0 : static_cast<uint32_t>(change) | (site & kSiteIdMask);
}

struct SiteFigures {
    uint64_t blocks_allocated;
    uint64_t bytes_allocated;  // new blocks, plus the growth of resizes
    uint64_t blocks_freed;
    uint64_t bytes_freed;  // freed blocks, plus what resizes gave back
    int64_t current;       // bytes held now
    int64_t at_peak;       // bytes held at the peak, once the site changed after it
    uint64_t changed_at;   // the event that last changed `current`

    uint64_t bytes_at_peak(uint64_t peak_at) const {
        int64_t held = changed_at <= peak_at ? current : at_peak;
        return held > 0 ? static_cast<uint64_t>(held) : 0;
    }
};

class SiteAccounts {
  public:
    // Room for site ids below `max_sites`; false if the kernel refuses the pages.
    bool init(uint32_t max_sites);
    void release();  // tests

    // One event of the merged stream. `heap_after` is the global heap once it happened.
    void on_event(uint32_t site_word, int64_t heap_change, uint64_t heap_after) {
        ++now_;
        uint32_t id = site_word & kSiteIdMask;
        if (id != 0 && id < capacity_)
            change_site(sites_[id], site_word & ~kSiteIdMask, heap_change);
        if (heap_after > peak_) {
            peak_ = heap_after;
            peak_at_ = now_;
        }
    }

    uint32_t capacity() const { return capacity_; }
    const SiteFigures& site(uint32_t id) const { return sites_[id]; }
    uint64_t bytes_at_peak(uint32_t id) const { return sites_[id].bytes_at_peak(peak_at_); }
    uint64_t heap_peak() const { return peak_; }

  private:
    void change_site(SiteFigures& site, uint32_t change, int64_t heap_change) {
        if (site.changed_at <= peak_at_) site.at_peak = site.current;
        site.current += heap_change;
        site.changed_at = now_;
        uint64_t bytes = heap_change >= 0 ? static_cast<uint64_t>(heap_change)
                                          : static_cast<uint64_t>(-heap_change);
        if (heap_change >= 0)
            site.bytes_allocated += bytes;
        else
            site.bytes_freed += bytes;
        if (change == static_cast<uint32_t>(SiteChange::new_block)) ++site.blocks_allocated;
        if (change == static_cast<uint32_t>(SiteChange::freed)) ++site.blocks_freed;
    }

    SiteFigures* sites_ = nullptr;
    uint32_t capacity_ = 0;
    uint64_t now_ = 0;      // events seen
    uint64_t peak_ = 0;     // the largest heap_after seen
    uint64_t peak_at_ = 0;  // the event that first reached it
};

}  // namespace memusage
