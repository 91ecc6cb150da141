// SPDX-License-Identifier: MIT
// What the pictures of an event recording colour by: the top sites (named as the report
// names them) or the top threads, each a slot with a legend label, and one slot more for
// everything else. Shared by the heap-by-site graph and the block map, so that a site has
// the same colour in both.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "read/events_reader.h"
#include "sites/site_names.h"

namespace memusagestat {

class EventSlots {
  public:
    // The top groups of `names` (at most kPaletteSize), in their order.
    static EventSlots by_site(const SiteNames& names);
    // The threads that allocated most, largest first; `bytes` per thread serial.
    static EventSlots by_thread(const std::unordered_map<uint32_t, uint64_t>& bytes,
                                const std::vector<ThreadInfo>& threads);

    // The slot of an allocation's site or thread; rest() when it is not among the top.
    unsigned slot_of(uint32_t site, uint32_t thread) const {
        const auto& map = by_site_ ? slot_by_site_ : slot_by_thread_;
        auto found = map.find(by_site_ ? site : thread);
        return found == map.end() ? rest() : found->second;
    }
    unsigned rest() const { return static_cast<unsigned>(labels_.size()); }
    unsigned count() const { return rest() + 1; }
    const std::vector<std::string>& labels() const { return labels_; }  // the named slots
    const std::string& rest_label() const { return rest_label_; }
    bool by_site() const { return by_site_; }

  private:
    bool by_site_ = true;
    std::vector<std::string> labels_;
    std::string rest_label_;
    std::unordered_map<uint32_t, unsigned> slot_by_site_, slot_by_thread_;
};

}  // namespace memusagestat
