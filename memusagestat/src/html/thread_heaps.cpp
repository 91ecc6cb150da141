// SPDX-License-Identifier: MIT
#include "html/thread_heaps.h"

#include <algorithm>

namespace memusagestat {

void ThreadHeaps::allocated(uint32_t thread, uint32_t owner, uint64_t size, uint64_t asked,
                            double time) {
    Figures& caller = figures_of(thread);
    ++caller.allocations;
    caller.bytes += asked;
    Figures& holder = figures_of(owner);
    holder.heap += static_cast<int64_t>(size);
    changed(holder, time);
}

void ThreadHeaps::ended(uint32_t owner, uint64_t size, double time) {
    Figures& holder = figures_of(owner);
    holder.heap -= static_cast<int64_t>(size);
    changed(holder, time);
}

void ThreadHeaps::freed_by(uint32_t thread) { ++figures_of(thread).frees; }

void ThreadHeaps::changed(Figures& figures, double time) {
    figures.peak = std::max(figures.peak, figures.heap);
    const int number = std::clamp(static_cast<int>(time / seconds_ * kBuckets), 0, kBuckets - 1);
    const Point point{time, figures.heap};
    if (number != figures.last_number) {
        auto [bucket, fresh] = figures.buckets.try_emplace(number, Bucket{point, point, point});
        figures.last_number = number;
        figures.last_bucket = &bucket->second;
        if (fresh) return;
    }
    Bucket& b = *figures.last_bucket;
    if (point.heap < b.low.heap) b.low = point;
    if (point.heap > b.high.heap) b.high = point;
    b.last = point;
}

void ThreadHeaps::describe(uint32_t serial, nlohmann::json& thread) const {
    const auto found = threads_.find(serial);
    if (found == threads_.end()) return;
    const Figures& figures = found->second;
    thread["allocations"] = figures.allocations;
    thread["bytes"] = figures.bytes;
    thread["frees"] = figures.frees;
    thread["peak"] = figures.peak;
    nlohmann::json time = nlohmann::json::array(), heap = nlohmann::json::array();
    time.push_back(0.0);
    heap.push_back(0);
    for (const auto& [number, bucket] : figures.buckets) {
        Point points[] = {bucket.low, bucket.high, bucket.last};
        std::sort(std::begin(points), std::end(points),
                  [](const Point& a, const Point& b) { return a.time < b.time; });
        double previous = -1;
        for (const Point& point : points) {
            if (point.time == previous) continue;
            previous = point.time;
            time.push_back(point.time);
            heap.push_back(point.heap);
        }
    }
    thread["series"] = {{"time", std::move(time)}, {"heap", std::move(heap)}};
}

}  // namespace memusagestat
