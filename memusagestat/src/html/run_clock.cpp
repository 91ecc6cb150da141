// SPDX-License-Identifier: MIT
#include "html/run_clock.h"

#include <algorithm>

namespace memusagestat {
namespace {

namespace machine_format = memusage::machine_format;

// The summary file states no machine; its monotonic clock does: a data file in
// microseconds lasts about the nanoseconds between the summary's readings over 1000, one
// stamped with a counter of GHz rates (x86) a thousand times that or more.
bool data_file_lasts_as_microseconds(const ProfileHeader& data, const RunSummary& summary) {
    if (data.end_time <= data.start_time || summary.end_ns <= summary.start_ns) return false;
    const double ratio = static_cast<double>(data.end_time - data.start_time) * 1000.0 /
                         static_cast<double>(summary.end_ns - summary.start_ns);
    return ratio > 0.5 && ratio < 2.0;
}

}  // namespace

uint8_t data_file_time_unit(const RunClockSources& sources) {
    if (sources.events != nullptr && sources.events->machine().data_file_time != 0)
        return sources.events->machine().data_file_time;
    if (sources.sites_machine != nullptr && sources.sites_machine->data_file_time != 0)
        return sources.sites_machine->data_file_time;
    if (sources.data != nullptr && sources.summary != nullptr &&
        data_file_lasts_as_microseconds(*sources.data, *sources.summary))
        return machine_format::kMicroseconds;
    return machine_format::kDataFileTimeUnknown;
}

RunClock run_clock(const RunClockSources& sources) {
    RunClock clock;
    const EventsReader* events = sources.events;
    const ProfileHeader* data = sources.data;
    const RunSummary* summary = sources.summary;
    // A recording without a clock record (a run that made no call) has no start: the other
    // files give the origin, or the run would seem to last since the machine booted.
    const bool events_started = events != nullptr && events->start_time() != 0;
    if (events != nullptr) {
        clock.seconds_per_cycle = events->seconds_per_cycle();
        clock.origin = events->start_time();
        clock.end = events->end_time();
    }
    // The collector's own readings of the counter and the clock at start and exit.
    if (summary != nullptr && clock.relative())
        clock.seconds_per_cycle = summary->seconds_per_cycle();
    if (data == nullptr) {
        if (summary != nullptr && !events_started) {
            clock.origin = summary->start_cycles;
            clock.end = summary->end_cycles;
        }
        return clock;
    }

    if (data_file_time_unit(sources) == machine_format::kMicroseconds) {
        if (events == nullptr && summary == nullptr) {
            // The data file's own clock is the run's: its unit is known.
            clock.seconds_per_cycle = 1e-6;
            clock.origin = data->start_time;
            clock.end = data->end_time;
            return clock;
        }
        clock.data_file_in_microseconds = true;
        // The recording's end and the data file's are read as the run ends, microseconds
        // apart; the summary's start and the data file's as the collector starts.
        if (events != nullptr)
            clock.tie = {data->end_time, events->end_time()};
        else
            clock.tie = {data->start_time, summary->start_cycles};
        if (!clock.relative()) {
            clock.cycles_per_microsecond = 1e-6 / clock.seconds_per_cycle;
        } else if (events != nullptr && data->end_time > data->start_time &&
                   events->end_time() > events->start_time()) {
            // Times are fractions of the run: its two lengths give a rate good enough.
            clock.cycles_per_microsecond =
                static_cast<double>(events->end_time() - events->start_time()) /
                static_cast<double>(data->end_time - data->start_time);
        }
    }
    const uint64_t data_start = clock.data_file_cycles(data->start_time);
    if (!events_started || data_start < clock.origin) clock.origin = data_start;
    clock.end = std::max(clock.end, clock.data_file_cycles(data->end_time));
    return clock;
}

}  // namespace memusagestat
