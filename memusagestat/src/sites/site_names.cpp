// SPDX-License-Identifier: MIT
#include "sites/site_names.h"

#include <memusage/sites_format.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "sites/frame_folding.h"
#include "sites/shown_sites.h"

namespace memusagestat {

namespace {

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string name_of(const SourceFrame& frame) {
    if (!frame.function.empty())
        return is_wrapper(frame) ? short_name(frame.function) : display_name(frame.function);
    char offset[24];
    std::snprintf(offset, sizeof offset, "0x%" PRIx64, frame.offset);
    return frame.module.empty() ? std::string(offset) : base_name(frame.module) + "+" + offset;
}

std::string location_of(const SourceFrame& frame) {
    if (!frame.file.empty()) return base_name(frame.file) + ":" + std::to_string(frame.line);
    if (!frame.function.empty() && !frame.module.empty()) return "in " + base_name(frame.module);
    return {};
}

// What a group is told apart by: every shown frame's line in the report (calls on one line
// are one site there, whatever their addresses), and the wrapper as the report names it.
std::string key_of(const SourceFrame& frame) { return describe(frame); }
std::string via_key_of(const SourceFrame& via) {
    return via.function.empty() ? describe(via) : short_name(via.function);
}

}  // namespace

SiteNames::SiteNames(const SitesProfile& profile, Symbolizer& symbolizer) {
    std::map<std::string, size_t> by_key;
    for (const AllocationSite& site : profile.sites) {
        if (site.blocks_allocated == 0 && site.bytes_allocated == 0) continue;  // as the report
        std::vector<SourceFrame> frames;
        for (uint64_t address : site.frames) {
            const std::vector<SourceFrame>& expanded = symbolizer.frames_of(address);
            frames.insert(frames.end(), expanded.begin(), expanded.end());
        }
        SiteGroup group;
        std::string key;
        if (const uint32_t cut = cut_at(site, profile); cut != 0) {
            group.stack.push_back({cut_root(cut), false});
            key = group.stack.back().name + "\n";
        }
        if (frames.empty()) {
            group.function = profile.unwinder_missing ? "(no stack: no libunwind)"
                             : site.id == memusage::sites_format::kTableFullSiteId
                                 ? "(stacks after the table filled up)"
                                 : "(no stack)";
            group.stack.push_back({group.function, false});
            key = group.function;
        } else {
            const ShownFrames shown = shown_frames(frames);
            group.function = name_of(frames[shown.first]);
            group.location = location_of(frames[shown.first]);
            for (size_t i = shown.end; i-- > shown.first;) {
                group.stack.push_back({name_of(frames[i]), !frames[i].runtime});
                key += key_of(frames[i]) + "\n";
            }
            if (shown.via != nullptr) {
                group.via = name_of(*shown.via);
                group.stack.push_back({group.via, false});
                key += "via " + via_key_of(*shown.via);
            }
        }
        auto [found, inserted] = by_key.emplace(key, groups_.size());
        if (inserted) groups_.push_back(std::move(group));
        SiteGroup& into = groups_[found->second];
        add_figures(into.figures, site);
        into.ids.push_back(site.id);
    }
    std::stable_sort(groups_.begin(), groups_.end(), [](const SiteGroup& a, const SiteGroup& b) {
        if (a.figures.bytes_at_peak != b.figures.bytes_at_peak)
            return a.figures.bytes_at_peak > b.figures.bytes_at_peak;
        return a.figures.bytes_allocated > b.figures.bytes_allocated;
    });
}

std::string shown_site_label(const std::vector<SourceFrame>& frames) {
    if (frames.empty()) return "(no stack)";
    const SourceFrame& innermost = frames[shown_frames(frames).first];
    std::string location = location_of(innermost);
    return location.empty() ? name_of(innermost) : name_of(innermost) + " (" + location + ")";
}

std::string program_name(const SitesProfile& profile) {
    return profile.modules.empty() ? std::string() : base_name(profile.modules.front().path);
}

}  // namespace memusagestat
