// SPDX-License-Identifier: MIT
#include "live/live_site_names.h"

#include <algorithm>

namespace memusage::live {

LiveSiteNames::LiveSiteNames(pid_t pid) : naming_(stack_naming(pid)) {}
LiveSiteNames::~LiveSiteNames() = default;

std::string LiveSiteNames::name_of(const live_format::HeldSite& site, bool& resolved) {
    uint32_t depth = std::min(site.depth, live_format::kSiteFrames);
    std::vector<uint64_t> stack(site.frames, site.frames + depth);
    auto known = names_.find(stack);
    if (known != names_.end()) return known->second;
    std::string name = naming_->name_of(stack, resolved);
    if (resolved) names_.emplace(std::move(stack), name);
    return name;
}

std::vector<SiteLine> LiveSiteNames::lines(const live_format::Figures& figures) {
    std::vector<SiteLine> lines;
    uint32_t rows = std::min(figures.site_rows, live_format::kSiteRows);
    // An address in no module known: a library loaded since the maps were read. They are
    // read again, once a refresh.
    bool reread = !modules_read_;
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (reread) {
            naming_->read_modules();
            modules_read_ = true;
        }
        lines.clear();
        bool all_resolved = true;
        for (uint32_t row = 0; row < rows; ++row) {
            const live_format::HeldSite& site = figures.sites[row];
            bool resolved = true;
            std::string name = name_of(site, resolved);
            all_resolved = all_resolved && resolved;
            auto same = std::find_if(lines.begin(), lines.end(),
                                     [&](const SiteLine& line) { return line.name == name; });
            if (same != lines.end()) {
                same->held += site.bytes;
                same->blocks += site.blocks;
            } else {
                lines.push_back(SiteLine{site.bytes, site.blocks, std::move(name)});
            }
        }
        if (all_resolved || reread) break;
        reread = true;
    }
    std::stable_sort(lines.begin(), lines.end(),
                     [](const SiteLine& a, const SiteLine& b) { return a.held > b.held; });
    return lines;
}

}  // namespace memusage::live
