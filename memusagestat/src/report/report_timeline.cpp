#include "report/report_timeline.h"

#include "report/extremes_thinner.h"

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
    file.visit_events(0, records.size(), [&](std::span<const memusage::Record> chunk) {
        for (const memusage::Record& r : chunk) {
            ++index;
            if (is_timeless(r)) continue;
            const double time = clock.data_file_seconds(r.time());
            if (window && !window->holds(time)) continue;
            ++total;
            thinner.add({index, time, r.heap, r.stack},
                        {as_measure(r.heap), as_measure(r.stack), as_measure(r.heap + r.stack)});
        }
    });
    thinner.finish();
    nlohmann::json json = {{"records", total}, {"thinned", thinner.thinning()}};
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
