// SPDX-License-Identifier: MIT
#include "pictures/address_folding.h"

#include <algorithm>

namespace memusagestat {

namespace {
// Blocks spanning more granules than this are kept as spans of their own.
constexpr uint64_t kLargeGranules = 64;
}  // namespace

void AddressFolding::add(uint64_t address, uint64_t size) {
    uint64_t end;
    if (__builtin_add_overflow(address, std::max<uint64_t>(size, 1), &end)) end = UINT64_MAX;
    const uint64_t first = address >> kGranuleShift, last = (end - 1) >> kGranuleShift;
    if (last - first >= kLargeGranules) {
        uint64_t& high = large_[address];
        high = std::max(high, end);
        return;
    }
    for (uint64_t granule = first; granule <= last; ++granule) {
        const uint64_t low = std::max(address, granule << kGranuleShift);
        const uint64_t high = granule == last ? end : std::min(end, (granule + 1) << kGranuleShift);
        CacheEntry& entry = cache_[granule % kCacheSize];
        if (entry.granule != granule) {
            // The map's nodes never move, so the pointer stays good.
            auto [at, inserted] = granules_.try_emplace(granule, Used{low, high});
            entry = {granule, &at->second};
            if (inserted) continue;
        }
        entry.used->low = std::min(entry.used->low, low);
        entry.used->high = std::max(entry.used->high, high);
    }
}

void AddressFolding::lay_out(double rows, double fold_rows) {
    std::vector<Used> spans;
    spans.reserve(granules_.size() + large_.size());
    for (const auto& [granule, used] : granules_) spans.push_back(used);
    for (const auto& [low, high] : large_) spans.push_back({low, high});
    std::sort(spans.begin(), spans.end(),
              [](const Used& a, const Used& b) { return a.low < b.low; });
    // Ranges in the same or neighbouring granules are one.
    std::vector<Used> merged;
    for (const Used& span : spans) {
        if (!merged.empty() && span.low <= merged.back().high + (uint64_t{1} << kGranuleShift)) {
            merged.back().high = std::max(merged.back().high, span.high);
            continue;
        }
        merged.push_back(span);
    }
    // Only the largest gaps are folded: a few regions stay readable, a hundred would not.
    if (merged.size() > kMaxRegions) {
        std::vector<uint64_t> gaps;
        for (size_t i = 1; i < merged.size(); ++i)
            gaps.push_back(merged[i].low - merged[i - 1].high);
        std::nth_element(gaps.begin(), gaps.begin() + (kMaxRegions - 2), gaps.end(),
                         std::greater<>());
        const uint64_t smallest_folded = gaps[kMaxRegions - 2];
        std::vector<Used> fewer{merged.front()};
        for (size_t i = 1; i < merged.size(); ++i) {
            const uint64_t gap = merged[i].low - merged[i - 1].high;
            if (gap >= smallest_folded && fewer.size() < kMaxRegions)
                fewer.push_back(merged[i]);
            else
                fewer.back().high = std::max(fewer.back().high, merged[i].high);
        }
        merged.swap(fewer);
    }
    regions_.clear();
    if (merged.empty()) return;
    // Each region gets an equal part of a third of the height and its share of the used
    // addresses of the rest: a small pool beside gigabytes of mapped buffers still shows.
    const double available =
        std::max(rows - fold_rows * static_cast<double>(merged.size() - 1), 1.0);
    const double equal = available / 3 / static_cast<double>(merged.size());
    long double total = 0;
    for (const Used& span : merged) total += static_cast<long double>(span.high - span.low);
    double bottom = 0;
    for (const Used& span : merged) {
        const double share =
            static_cast<double>(static_cast<long double>(span.high - span.low) / total);
        Region region;
        region.low = span.low;
        region.high = span.high;
        region.bottom = bottom;
        region.rows = equal + available * 2 / 3 * share;
        regions_.push_back(region);
        bottom += region.rows + fold_rows;
    }
}

const AddressFolding::Region& AddressFolding::region_of(uint64_t address) const {
    if (last_region_ < regions_.size()) {
        const Region& last = regions_[last_region_];
        const bool above_next =
            last_region_ + 1 < regions_.size() && address >= regions_[last_region_ + 1].low;
        if (address >= last.low && !above_next) return last;
    }
    auto after = std::upper_bound(regions_.begin(), regions_.end(), address,
                                  [](uint64_t a, const Region& r) { return a < r.low; });
    last_region_ =
        after == regions_.begin() ? 0 : static_cast<size_t>(after - regions_.begin()) - 1;
    return regions_[last_region_];
}

double AddressFolding::height_of(uint64_t address) const {
    const Region& region = region_of(address);
    if (address <= region.low) return region.bottom;
    if (address >= region.high) return region.bottom + region.rows;
    return region.bottom + static_cast<double>(static_cast<long double>(address - region.low) /
                                               static_cast<long double>(region.high - region.low)) *
                               region.rows;
}

}  // namespace memusagestat
