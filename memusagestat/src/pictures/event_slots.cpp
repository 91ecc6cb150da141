// SPDX-License-Identifier: MIT
#include "pictures/event_slots.h"

#include <algorithm>

#include "draw/picture_style.h"

namespace memusagestat {
namespace {

// The name of the frame `level` calls out from a group's innermost shown frame; null past
// its outermost.
const std::string* caller_of(const SiteGroup& group, size_t level) {
    const size_t wrappers = group.via.empty() ? 0 : 1;
    if (group.stack.size() <= wrappers + level) return nullptr;
    const size_t innermost = group.stack.size() - 1 - wrappers;
    return &group.stack[innermost - level].name;
}

// The first named caller out from group `i`'s innermost frame that none of the groups
// `alike` (the same label) has at that level; empty when there is none.
std::string first_caller_apart(const std::vector<SiteGroup>& groups, size_t i,
                               const std::vector<size_t>& alike) {
    for (size_t level = 1;; ++level) {
        const std::string* own = caller_of(groups[i], level);
        if (own == nullptr) return {};
        bool differs = true;
        for (size_t j : alike) {
            const std::string* other = caller_of(groups[j], level);
            differs = differs && (other == nullptr || *other != *own);
        }
        if (differs && !own->empty()) return *own;  // a frame with no name tells none apart
    }
}

// The legend's labels of `groups` (plain: their innermost frame's place), told apart where
// two or more are alike. Sites that differ further out or in the wrapper they went
// through can share their innermost frame: the wrapper tells them apart in the legend,
// else the first caller that differs (all of a program's sites end in its own allocator
// when it has one: Python's, HotSpot's, an xmalloc), else their rank.
std::vector<std::string> labels_apart(const std::vector<SiteGroup>& groups,
                                      const std::vector<std::string>& plain) {
    std::vector<std::string> labels = plain;
    for (size_t i = 0; i < plain.size(); ++i) {
        const auto same = std::count(plain.begin(), plain.end(), plain[i]);
        if (same > 1 && !groups[i].via.empty()) labels[i] += " via " + groups[i].via;
    }
    const std::vector<std::string> with_via = labels;
    for (size_t i = 0; i < with_via.size(); ++i) {
        std::vector<size_t> alike;
        for (size_t j = 0; j < with_via.size(); ++j)
            if (j != i && with_via[j] == with_via[i]) alike.push_back(j);
        if (alike.empty()) continue;
        const std::string caller = first_caller_apart(groups, i, alike);
        if (!caller.empty()) {
            // The place is theirs alike: the caller takes its room in the legend.
            const bool with_wrapper = with_via[i] != plain[i];
            labels[i] = groups[i].function +
                        (with_wrapper ? " via " + groups[i].via : std::string()) + " by " + caller;
        } else {
            const auto before =
                std::count_if(alike.begin(), alike.end(), [&](size_t j) { return j < i; });
            labels[i] += " #" + std::to_string(before + 1);
        }
    }
    return labels;
}

}  // namespace

EventSlots EventSlots::by_site(const SiteNames& names) {
    EventSlots slots;
    slots.by_site_ = true;
    const auto& groups = names.groups();
    std::vector<std::string> plain;
    for (size_t g = 0; g < groups.size() && g < kPaletteSize; ++g) {
        if (groups[g].figures.bytes_allocated == 0) break;
        for (uint32_t id : groups[g].ids) slots.slot_by_site_.emplace(id, static_cast<unsigned>(g));
        plain.push_back(groups[g].label());
    }
    slots.labels_ = labels_apart(groups, plain);
    const size_t others = groups.size() - slots.labels_.size();
    slots.rest_label_ = others == 0 ? "(blocks of no known site)"
                                    : count_text(others) + " other site" + (others == 1 ? "" : "s");
    return slots;
}

EventSlots EventSlots::by_thread(const std::unordered_map<uint32_t, uint64_t>& bytes,
                                 const std::vector<ThreadInfo>& threads) {
    EventSlots slots;
    slots.by_site_ = false;
    std::vector<std::pair<uint32_t, uint64_t>> ranked(bytes.begin(), bytes.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    for (size_t i = 0; i < ranked.size() && i < kPaletteSize; ++i) {
        const uint32_t serial = ranked[i].first;
        std::string label =
            serial == 0 ? "(thread not recorded)" : "thread " + std::to_string(serial);
        for (const ThreadInfo& thread : threads) {
            if (thread.serial != serial) continue;
            label += " (tid " + std::to_string(thread.tid);
            if (!thread.name.empty()) label += ", " + thread.name;
            label += ")";
        }
        slots.slot_by_thread_.emplace(serial, static_cast<unsigned>(i));
        slots.labels_.push_back(label);
    }
    const size_t others = ranked.size() - slots.labels_.size();
    slots.rest_label_ = others == 0
                            ? "(no other threads)"
                            : count_text(others) + " other thread" + (others == 1 ? "" : "s");
    return slots;
}

}  // namespace memusagestat
