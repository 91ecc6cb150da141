// SPDX-License-Identifier: MIT
#include "graph/build_envelope.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace memusagestat {

namespace {

constexpr uint64_t kEventsPerPart = 1 << 20;

EnvelopeSeries empty_series(const Placement& placement, uint64_t event_count) {
    return placement.time_based
               ? EnvelopeSeries::by_time(placement.columns, placement.start_time,
                                         placement.end_time, placement.with_total)
               : EnvelopeSeries::by_call(placement.columns, event_count, placement.with_total);
}

}  // namespace

unsigned envelope_parts(uint64_t events) {
    const uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::clamp<uint64_t>(events / kEventsPerPart, 1, threads));
}

EnvelopeSeries build_envelope(const MappedDataFile& file, const Placement& placement,
                              unsigned parts) {
    const uint64_t events = file.profile().events.size();
    parts = std::max(parts, 1u);
    std::vector<EnvelopeSeries> series(parts, empty_series(placement, events));
    auto build_part = [&](unsigned part) {
        const uint64_t begin = events * part / parts;
        const uint64_t end = events * (part + 1) / parts;
        series[part].skip_to_event(begin);
        file.visit_events(begin, end - begin, [&](std::span<const memusage::Record> chunk) {
            series[part].add(chunk);
        });
    };
    std::vector<std::thread> helpers;
    for (unsigned part = 1; part < parts; ++part) helpers.emplace_back(build_part, part);
    build_part(0);
    for (std::thread& helper : helpers) helper.join();

    for (unsigned part = 1; part < parts; ++part) series[0].merge_later(series[part]);
    return std::move(series[0]);
}

}  // namespace memusagestat
