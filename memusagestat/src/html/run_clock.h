// SPDX-License-Identifier: MIT
// The run's cycle-counter readings as seconds since it began. The event recording, the
// summary file and the sites file stamp with the collector's counter; the data file stamps
// with that counter too on x86, but with the wall clock's microseconds on the boards
// (aarch64, armhf, riscv64: glibc's unit there), which one pair of readings taken at the same
// instant ties to the counter.
#pragma once

#include <memusage/machine_format.h>

#include <cmath>
#include <cstdint>

#include "read/events_reader.h"
#include "read/profile.h"
#include "read/summary_reader.h"

namespace memusagestat {

// A board's data-file times (microseconds) on the counter's line: `counter` was read when
// the data file's clock said `microseconds`.
struct DataFileTie {
    uint64_t microseconds = 0;
    uint64_t counter = 0;
};

struct RunClock {
    uint64_t origin = 0;           // the counter at the run's start
    uint64_t end = 0;              // at its end
    double seconds_per_cycle = 0;  // 0: unknown, and times are fractions of the run
    // Set when the data file's times are microseconds (a board's) and not the counter's.
    bool data_file_in_microseconds = false;
    DataFileTie tie;
    // The counter's ticks per microsecond, for the tie: from seconds_per_cycle, or, when
    // that is unknown, from the lengths of the run in either clock.
    double cycles_per_microsecond = 1;

    bool relative() const { return seconds_per_cycle <= 0; }

    // Rounded to 100 ns: finer digits would only make the report larger.
    double seconds(uint64_t cycles) const {
        const double since = cycles > origin ? static_cast<double>(cycles - origin) : 0.0;
        double value = since * seconds_per_cycle;
        if (relative()) value = end > origin ? since / static_cast<double>(end - origin) : 0.0;
        return round_to_tenth_microsecond(value);
    }

    // std::round(seconds * 1e7) / 1e7, without the library call for the times of a run.
    static double round_to_tenth_microsecond(double seconds) {
        const double ticks = seconds * 1e7;
        if (!(ticks >= 0 && ticks < 0x1p62)) return std::round(ticks) / 1e7;
        const auto whole = static_cast<int64_t>(ticks);          // rounded down
        const double part = ticks - static_cast<double>(whole);  // exact below 2^62
        return static_cast<double>(part >= 0.5 ? whole + 1 : whole) / 1e7;
    }

    // A data-file record's time as the counter's reading at that instant.
    uint64_t data_file_cycles(uint64_t time) const {
        if (!data_file_in_microseconds) return time;
        const double from_tie =
            (time >= tie.microseconds ? static_cast<double>(time - tie.microseconds)
                                      : -static_cast<double>(tie.microseconds - time)) *
            cycles_per_microsecond;
        // In whole ticks from the tie: a double holds a counter's reading only to 53 bits.
        const int64_t ticks = std::llround(from_tie);
        if (ticks < 0 && static_cast<uint64_t>(-ticks) > tie.counter) return 0;
        return tie.counter + static_cast<uint64_t>(ticks);
    }

    double data_file_seconds(uint64_t time) const { return seconds(data_file_cycles(time)); }
};

// The run's files that stamp times; null for those the report has not.
struct RunClockSources {
    const EventsReader* events = nullptr;  // a cut recording after a pass (its rate and end)
    const ProfileHeader* data = nullptr;
    const RunSummary* summary = nullptr;
    const memusage::machine_format::MachineStamp* sites_machine = nullptr;
};

// The data file's time unit (machine_format.h's DataFileTime), as the stamp of the
// recording or the sites file states it, or the summary file's clock shows it.
uint8_t data_file_time_unit(const RunClockSources& sources);

// One clock for every file of the run: its origin is the earliest start, its end the latest.
RunClock run_clock(const RunClockSources& sources);

}  // namespace memusagestat
