// SPDX-License-Identifier: MIT
// The block map's y axis: the address ranges blocks used, with the empty ranges between them
// folded out, so that a heap in three distant regions (the brk heap, mmap'd blocks, a
// thread's arena) fills the picture instead of three lines in 2^47 bytes of nothing.
// Memory: one entry per megabyte of address space that blocks touched, never per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace memusagestat {

class AddressFolding {
  public:
    // The first pass: a block at [address, address + size).
    void add(uint64_t address, uint64_t size);

    // Lays the ranges out over `rows` pixel rows (bottom to top: low addresses down),
    // keeping `fold_rows` rows for each fold between them.
    struct Region {
        uint64_t low = 0, high = 0;   // the addresses [low, high) blocks used here
        double bottom = 0, rows = 0;  // from the plot's bottom, in rows
    };
    void lay_out(double rows, double fold_rows);

    const std::vector<Region>& regions() const { return regions_; }
    // The region an address falls in (the nearest one, for an address no block used).
    const Region& region_of(uint64_t address) const;
    // An address's height above the plot's bottom, in rows.
    double height_of(uint64_t address) const;
    bool empty() const { return regions_.empty(); }

    static constexpr unsigned kMaxRegions = 12;
    static constexpr unsigned kGranuleShift = 20;  // 1 MiB: address ranges closer are one

  private:
    struct Used {
        uint64_t low, high;
    };
    std::unordered_map<uint64_t, Used> granules_;
    std::map<uint64_t, uint64_t> large_;  // blocks over many granules: low -> high
    // The granules met last, direct-mapped: a pool's blocks and a buffer's far away
    // alternate without a hash lookup each.
    static constexpr unsigned kCacheSize = 64;
    struct CacheEntry {
        uint64_t granule = UINT64_MAX;
        Used* used = nullptr;
    };
    CacheEntry cache_[kCacheSize];
    std::vector<Region> regions_;
    mutable size_t last_region_ = 0;  // found last: blocks come in runs within a region
};

}  // namespace memusagestat
