// SPDX-License-Identifier: MIT
// A value for each raw site id (SiteRecord::id), looked up for every event of a replay: an
// array indexed by id, as the collector numbers its stacks from 1 upwards, so a lookup is
// one memory access where a node-based map took several. Ids far past the number of sites
// (a damaged file's) go to a map beside it, so the array stays the size of the sites file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace memusagestat {

template <class Value>
class SiteIdTable {
  public:
    // `ids`: about how many ids will be set; `none`: the value of an id never set.
    SiteIdTable(size_t ids, Value none) : none_(none), dense_limit_(2 * ids + kSlack) {}

    // `id`'s value, to change; `none` until set.
    Value& at(uint32_t id) {
        if (id >= dense_limit_) return far_.try_emplace(id, none_).first->second;
        if (id >= dense_.size()) dense_.resize(size_t{id} + 1, none_);
        return dense_[id];
    }

    const Value& operator[](uint32_t id) const {
        if (id < dense_.size()) return dense_[id];
        if (far_.empty()) return none_;
        auto found = far_.find(id);
        return found == far_.end() ? none_ : found->second;
    }

    // The array's length: ids below it are looked up there.
    size_t dense_size() const { return dense_.size(); }

  private:
    static constexpr size_t kSlack = 1024;

    Value none_;
    size_t dense_limit_;
    std::vector<Value> dense_;  // not for bool: a vector of bits has no references
    std::unordered_map<uint32_t, Value> far_;
};

}  // namespace memusagestat
