// SPDX-License-Identifier: MIT
#include "html/page_stack_peaks.h"

#include <cmath>

#include "reports/stack_peaks_report.h"

namespace memusagestat {
namespace {

nlohmann::json serial_of(uint64_t tid, const nlohmann::json& threads) {
    for (const nlohmann::json& thread : threads)
        if (thread.value("tid", uint64_t{0}) == tid) return thread["serial"];
    return nullptr;
}

// A frame's index in the table and those of the functions inlined into it, in the order
// the stack peak report names them ("holder > inlined > inlined into that"); -1 for a frame
// the full table left out.
nlohmann::json frame_json(const StackPeakFrame& frame, FrameTable& table) {
    nlohmann::json inlined = nlohmann::json::array();
    int64_t index = -1;
    if (frame.source == nullptr || frame.source->empty()) {
        SourceFrame unknown;
        unknown.function = frame.function;
        index = table.index_of(unknown);
    } else {
        SourceFrame holder = frame.source->back();
        if (frame.signal_frame) holder.function = frame.function;
        index = table.index_of(holder);
        for (size_t k = frame.source->size() - 1; k > 0; --k)
            inlined.push_back(table.index_of((*frame.source)[k - 1]));
    }
    nlohmann::json entry = {{"frame", index},
                            {"bytes", frame.measured ? nlohmann::json(frame.bytes) : nullptr}};
    if (!inlined.empty()) entry["inlined"] = std::move(inlined);
    return entry;
}

}  // namespace

nlohmann::json stack_peaks_json(const SitesProfile& profile, Symbolizer& symbolizer,
                                FrameTable& table, const RunClock& clock,
                                const nlohmann::json& threads) {
    if (profile.stack_peaks.empty()) return nullptr;
    nlohmann::json peaks = nlohmann::json::array();
    for (const StackPeak* peak : ordered_stack_peaks(profile)) {
        nlohmann::json frames = nlohmann::json::array();
        for (const StackPeakFrame& frame : stack_peak_frames(*peak, symbolizer))
            frames.push_back(frame_json(frame, table));
        // The collector counts a peak's time from its own start, which is the report's
        // origin (the data file's and the recording's start) within microseconds.
        nlohmann::json time = nullptr;
        if (!clock.relative()) time = std::round(static_cast<double>(peak->time_ns) / 100.0) / 1e7;
        peaks.push_back({{"thread", serial_of(peak->tid, threads)},
                         {"tid", peak->tid},
                         {"name", peak->thread_name},
                         {"main_thread", peak->main_thread},
                         {"stack", peak->stack == PeakStack::signal ? "signal" : "own"},
                         {"from_tick", peak->from_tick},
                         {"time", std::move(time)},
                         {"bytes", peak->bytes},
                         {"outer", peak->outer_bytes()},
                         {"frames", std::move(frames)},
                         {"cut", peak->frames_cut}});
    }
    return peaks;
}

}  // namespace memusagestat
