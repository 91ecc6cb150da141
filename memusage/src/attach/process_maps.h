// SPDX-License-Identifier: MIT
// A running process's mapped files (/proc/PID/maps), as attaching needs them: where each
// file is loaded (its load bias), and the address ranges of each.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memusage::attach {

struct MappedRange {
    uintptr_t begin;
    uintptr_t end;
    uint64_t offset;
    bool executable;
    std::string path;  // empty for anonymous memory; " (deleted)" removed
};

std::vector<MappedRange> read_maps(pid_t pid);

// The first mapping of a file whose name ends with `suffix` (as "/libc.so.6"); null if none.
const MappedRange* find_module(const std::vector<MappedRange>& maps, const std::string& suffix);

// Where the file `path` is loaded: the start of its mapping at offset 0.
uintptr_t load_base(const std::vector<MappedRange>& maps, const std::string& path);

}  // namespace memusage::attach
