// SPDX-License-Identifier: MIT
#include "html/heap_buckets.h"

#include <algorithm>
#include <cmath>

namespace memusagestat {
namespace {

// As the report's other times: to 100 ns.
double rounded(double seconds) { return std::round(seconds * 1e7) / 1e7; }

}  // namespace

HeapBuckets::HeapBuckets(double start, double end, size_t finest)
    : start_(start), end_(end > start ? end : start + 1e-7) {
    for (size_t count = std::max<size_t>(1, finest);; count /= kFanout) {
        levels_.emplace_back(count);
        if (count <= 1) break;
    }
}

size_t HeapBuckets::bucket_of(double time) const {
    const size_t count = levels_.front().size();
    const double place = (time - start_) / (end_ - start_) * static_cast<double>(count);
    if (!(place > 0)) return 0;
    return std::min(count - 1, static_cast<size_t>(place));
}

void HeapBuckets::open_until(size_t bucket) {
    std::vector<Bucket>& finest = levels_.front();
    const double width = (end_ - start_) / static_cast<double>(finest.size());
    for (; open_ < bucket; ++open_) {
        Bucket& b = finest[open_];
        b.heap = b.low = b.high = heap_;
        b.high_after = position_ - 1;
        b.high_time = rounded(start_ + width * static_cast<double>(open_));
    }
}

void HeapBuckets::add(double time, Kind kind, uint64_t allocated, int64_t heap) {
    if (time < start_) {
        heap_ = heap;
        ++position_;
        return;
    }
    if (time > end_) {
        ++position_;
        return;
    }
    const size_t index = bucket_of(time);
    open_until(index + 1);
    Bucket& b = levels_.front()[index];
    if (kind == Kind::release) {
        ++b.frees;
    } else {
        ++b.calls;
        b.bytes += allocated;
    }
    heap_ = heap;
    b.low = std::min(b.low, heap);
    if (heap > b.high) {
        b.high = heap;
        b.high_after = position_;
        b.high_time = time;
    }
    ++position_;
}

void HeapBuckets::finish_counts() {
    open_until(levels_.front().size());
    for (size_t level = 1; level < levels_.size(); ++level) {
        const std::vector<Bucket>& below = levels_[level - 1];
        std::vector<Bucket>& here = levels_[level];
        for (size_t j = 0; j < here.size(); ++j) {
            Bucket& b = here[j];
            const size_t first = j * kFanout, last = std::min(below.size(), first + kFanout);
            b = below[first];
            for (size_t i = first + 1; i < last; ++i) {
                const Bucket& child = below[i];
                b.calls += child.calls;
                b.bytes += child.bytes;
                b.frees += child.frees;
                b.low = std::min(b.low, child.low);
                if (child.high > b.high) {  // the first child reaching the greatest
                    b.high = child.high;
                    b.high_after = child.high_after;
                    b.high_time = child.high_time;
                }
            }
        }
    }
    std::unordered_map<int64_t, size_t> wanted_at;  // event position -> sites to take
    for (size_t level = 0; level < levels_.size(); ++level) {
        const size_t wanted = kSitesPerBucket[std::min(level, std::size(kSitesPerBucket) - 1)];
        for (const Bucket& b : levels_[level]) {
            size_t& count = wanted_at[b.high_after];
            count = std::max(count, wanted);
        }
    }
    // In event order, so that each event of the second pass compares its position with the
    // next moment's, where a lookup per event took 7% of the report's time.
    moments_.assign(wanted_at.begin(), wanted_at.end());
    std::sort(moments_.begin(), moments_.end());
    if (!moments_.empty() && moments_.front().first == -1) take(moments_[next_moment_++]);
}

void HeapBuckets::site_changed(int32_t site, int64_t bytes) {
    const size_t slot = static_cast<size_t>(std::max<int32_t>(site, -1) + 1);
    if (slot >= held_.size()) held_.resize(slot + 1);
    held_[slot] += bytes;
    changed_.push_back(slot);
}

void HeapBuckets::passed(double time) {
    if (next_moment_ < moments_.size() && moments_[next_moment_].first == replayed_)
        take(moments_[next_moment_++]);
    ++replayed_;
    if (time > end_) changed_.clear();
    if (!begun_ && time >= start_ && time <= end_) begin_most();
    if (begun_) {
        // After the whole event: a resize's old size is gone before its new one counts.
        for (const size_t slot : changed_) {
            if (slot >= most_.size()) {
                most_.resize(slot + 1, 0);
                most_time_.resize(slot + 1, 0);
            }
            if (held_[slot] > most_[slot]) {
                most_[slot] = held_[slot];
                most_time_[slot] = time;
            }
        }
    }
    changed_.clear();
}

// The level carried into `start`: what each site held then is its most so far.
void HeapBuckets::begin_most() {
    begun_ = true;
    most_.assign(held_.begin(), held_.end());
    for (int64_t& bytes : most_) bytes = std::max<int64_t>(bytes, 0);
    most_time_.assign(held_.size(), start_);
}

void HeapBuckets::take(const std::pair<int64_t, size_t>& moment) {
    // Every site holding bytes now, in a scratch vector kept from moment to moment; only the
    // largest `wanted` are kept, in a vector of their size (a kept copy of the scratch's
    // capacity, one per moment, took 349 MB on a 6-million-event run of 16,384 sites).
    std::vector<std::pair<int32_t, int64_t>>& held = scratch_;
    held.clear();
    for (size_t slot = 0; slot < held_.size(); ++slot)
        if (held_[slot] > 0) held.emplace_back(static_cast<int32_t>(slot) - 1, held_[slot]);
    const auto wanted = static_cast<ptrdiff_t>(std::min(held.size(), moment.second));
    const auto larger = [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    };
    std::partial_sort(held.begin(), held.begin() + wanted, held.end(), larger);
    taken_[moment.first].assign(held.begin(), held.begin() + wanted);
}

nlohmann::json HeapBuckets::json() const {
    nlohmann::json levels = nlohmann::json::array();
    for (size_t level = 0; level < levels_.size(); ++level) {
        const std::vector<Bucket>& buckets = levels_[level];
        const size_t wanted = kSitesPerBucket[std::min(level, std::size(kSitesPerBucket) - 1)];
        nlohmann::json out = {{"count", buckets.size()}};
        const auto column = [&](const char* name, auto value) {
            nlohmann::json values = nlohmann::json::array();
            values.get_ref<nlohmann::json::array_t&>().reserve(buckets.size());
            for (const Bucket& b : buckets) values.push_back(value(b));
            out[name] = std::move(values);
        };
        column("calls", [](const Bucket& b) { return b.calls; });
        column("bytes", [](const Bucket& b) { return b.bytes; });
        column("frees", [](const Bucket& b) { return b.frees; });
        column("heap", [](const Bucket& b) { return b.heap; });
        column("low", [](const Bucket& b) { return b.low; });
        column("high", [](const Bucket& b) { return b.high; });
        column("high_time", [](const Bucket& b) { return b.high_time; });
        column("sites", [&](const Bucket& b) {
            nlohmann::json flat = nlohmann::json::array();
            const auto found = taken_.find(b.high_after);
            if (found == taken_.end()) return flat;
            const size_t count = std::min(wanted, found->second.size());
            for (size_t i = 0; i < count; ++i) {
                flat.push_back(found->second[i].first);
                flat.push_back(found->second[i].second);
            }
            return flat;
        });
        levels.push_back(std::move(out));
    }
    nlohmann::json site = nlohmann::json::array(), bytes = nlohmann::json::array(),
                   time = nlohmann::json::array();
    for (size_t slot = 0; slot < most_.size(); ++slot) {
        if (most_[slot] <= 0) continue;
        site.push_back(static_cast<int64_t>(slot) - 1);
        bytes.push_back(most_[slot]);
        time.push_back(rounded(most_time_[slot]));
    }
    return {{"start", rounded(start_)},
            {"end", rounded(end_)},
            {"levels", std::move(levels)},
            {"most_held",
             {{"site", std::move(site)}, {"bytes", std::move(bytes)}, {"time", std::move(time)}}}};
}

}  // namespace memusagestat
