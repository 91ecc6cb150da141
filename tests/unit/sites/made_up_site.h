// SPDX-License-Identifier: MIT
// A site of a profile made up by a test: its frames and figures as the sites file gives them.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "read/sites_reader.h"

namespace memusagestat {

inline AllocationSite made_up_site(std::vector<uint64_t> frames, uint64_t allocated_blocks,
                                   uint64_t allocated_bytes, uint64_t freed_blocks,
                                   uint64_t freed_bytes, uint64_t at_peak = 0, uint32_t id = 0) {
    AllocationSite site;
    site.frames = std::move(frames);
    site.blocks_allocated = allocated_blocks;
    site.bytes_allocated = allocated_bytes;
    site.blocks_freed = freed_blocks;
    site.bytes_freed = freed_bytes;
    site.bytes_at_peak = at_peak;
    site.id = id;
    return site;
}

}  // namespace memusagestat
