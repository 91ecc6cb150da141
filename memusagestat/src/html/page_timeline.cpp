// SPDX-License-Identifier: MIT
#include "html/page_timeline.h"

#include <array>
#include <cmath>

#include "html/extremes_thinner.h"

namespace memusagestat {
namespace {

struct Point {
    uint64_t index;  // the record's place among the calls, from 1
    double time;
    uint64_t heap, stack;
};

int64_t as_measure(uint64_t value) {
    return value > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(value);
}

// Every record's least and greatest heap, stack and total in equal time buckets, each
// beginning at the level the records before left: what each pixel column of the timeline
// draws when the records are thinned (a kept record's level never stands for a stretch whose
// records were left out).
class Envelope {
  public:
    static constexpr size_t kBuckets = 4096;

    Envelope(double start, double end) : start_(start), end_(end > start ? end : start + 1e-7) {
        for (auto& column : low_) column.resize(kBuckets);
        for (auto& column : high_) column.resize(kBuckets);
    }

    void add(double time, const std::array<uint64_t, 3>& values) {
        if (time < start_) {
            level_ = values;
            return;
        }
        if (time > end_) return;
        const double place = (time - start_) / (end_ - start_) * static_cast<double>(kBuckets);
        const size_t bucket = place > 0 ? std::min(kBuckets - 1, static_cast<size_t>(place)) : 0;
        open_until(bucket + 1);
        level_ = values;
        for (size_t m = 0; m < 3; ++m) {
            low_[m][bucket] = std::min(low_[m][bucket], values[m]);
            high_[m][bucket] = std::max(high_[m][bucket], values[m]);
        }
    }

    nlohmann::json json() {
        open_until(kBuckets);
        nlohmann::json out = {{"start", std::round(start_ * 1e7) / 1e7},
                              {"end", std::round(end_ * 1e7) / 1e7},
                              {"count", kBuckets}};
        const char* names[] = {"heap", "stack", "total"};
        for (size_t m = 0; m < 3; ++m) {
            out[std::string(names[m]) + "_low"] = low_[m];
            out[std::string(names[m]) + "_high"] = high_[m];
        }
        return out;
    }

  private:
    void open_until(size_t bucket) {
        for (; open_ < bucket; ++open_)
            for (size_t m = 0; m < 3; ++m) low_[m][open_] = high_[m][open_] = level_[m];
    }

    double start_, end_;
    std::array<std::vector<uint64_t>, 3> low_, high_;
    std::array<uint64_t, 3> level_{};
    size_t open_ = 0;
};

}  // namespace

nlohmann::json timeline_json(const MappedDataFile& file, const RunClock& clock,
                             const std::optional<TimeWindow>& window, size_t bound) {
    const auto& records = file.profile().events;
    // How many fall in the window, for the buckets: a first pass only when there is one.
    uint64_t expected = records.size();
    if (window) {
        expected = 0;
        file.visit_events(0, records.size(), [&](std::span<const memusage::Record> chunk) {
            for (const memusage::Record& r : chunk)
                expected += !is_timeless(r) && window->holds(clock.data_file_seconds(r.time()));
        });
    }
    std::vector<Point> points;
    ExtremesThinner<Point, 3> thinner(expected, bound, points);
    uint64_t index = 0, total = 0;
    // A window opens at the level the records before it left: its first point, at its start.
    std::optional<Point> carried;
    Envelope envelope(window ? window->start : 0.0,
                      window && window->end ? *window->end : clock.seconds(clock.end));
    bool opened = !window || window->start <= 0;
    file.visit_events(0, records.size(), [&](std::span<const memusage::Record> chunk) {
        for (const memusage::Record& r : chunk) {
            ++index;
            if (is_timeless(r)) continue;
            const double time = clock.data_file_seconds(r.time());
            envelope.add(time, {r.heap, r.stack, r.heap + r.stack});
            if (window && time < window->start)
                carried = Point{index, window->start, r.heap, r.stack};
            if (window && !window->holds(time)) continue;
            if (!opened) {
                opened = true;
                if (carried)
                    thinner.add(*carried, {as_measure(carried->heap), as_measure(carried->stack),
                                           as_measure(carried->heap + carried->stack)});
            }
            ++total;
            thinner.add({index, time, r.heap, r.stack},
                        {as_measure(r.heap), as_measure(r.stack), as_measure(r.heap + r.stack)});
        }
    });
    if (!opened && carried)  // no record inside: the level carried through the whole window
        thinner.add(*carried, {as_measure(carried->heap), as_measure(carried->stack),
                               as_measure(carried->heap + carried->stack)});
    thinner.finish();
    nlohmann::json json = {{"records", total}, {"thinned", thinner.thinning()}};
    if (thinner.thinning()) json["envelope"] = envelope.json();
    for (const char* name : {"index", "time", "heap", "stack"})
        json[name] = nlohmann::json::array();
    for (auto* column : {&json["index"], &json["time"], &json["heap"], &json["stack"]})
        column->get_ref<nlohmann::json::array_t&>().reserve(points.size());
    for (const Point& point : points) {
        json["index"].push_back(point.index);
        json["time"].push_back(point.time);
        json["heap"].push_back(point.heap);
        json["stack"].push_back(point.stack);
    }
    return json;
}

}  // namespace memusagestat
