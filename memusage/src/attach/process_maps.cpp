// SPDX-License-Identifier: MIT
#include "attach/process_maps.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace memusage::attach {

std::vector<MappedRange> read_maps(pid_t pid) {
    std::vector<MappedRange> maps;
    std::ifstream file("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(file, line)) {
        uintptr_t begin = 0;
        uintptr_t end = 0;
        char permissions[8] = {};
        uint64_t offset = 0;
        int path_at = 0;
        if (sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %7s %" SCNx64 " %*s %*s %n", &begin,
                   &end, permissions, &offset, &path_at) < 4)
            continue;
        std::string path = path_at > 0 ? line.substr(static_cast<size_t>(path_at)) : "";
        constexpr std::string_view kDeleted = " (deleted)";
        if (path.ends_with(kDeleted)) path.resize(path.size() - kDeleted.size());
        maps.push_back({begin, end, offset, permissions[2] == 'x', path});
    }
    return maps;
}

const MappedRange* find_module(const std::vector<MappedRange>& maps, const std::string& suffix) {
    for (const MappedRange& range : maps)
        if (range.path.ends_with(suffix)) return &range;
    return nullptr;
}

uintptr_t load_base(const std::vector<MappedRange>& maps, const std::string& path) {
    for (const MappedRange& range : maps)
        if (range.path == path && range.offset == 0) return range.begin;
    return 0;
}

}  // namespace memusage::attach
