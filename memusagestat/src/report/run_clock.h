// The run's cycle-counter readings as seconds since it began: the data file and the event
// recording stamp with the same counter, so one origin and one rate serve both.
#pragma once

#include <cmath>
#include <cstdint>

namespace memusagestat {

struct RunClock {
    uint64_t origin = 0;           // the counter at the run's start
    uint64_t end = 0;              // at its end
    double seconds_per_cycle = 0;  // 0: unknown, and times are fractions of the run

    bool relative() const { return seconds_per_cycle <= 0; }

    // Rounded to 100 ns: finer digits would only make the report larger.
    double seconds(uint64_t cycles) const {
        const double since = cycles > origin ? static_cast<double>(cycles - origin) : 0.0;
        double value = since * seconds_per_cycle;
        if (relative()) value = end > origin ? since / static_cast<double>(end - origin) : 0.0;
        return std::round(value * 1e7) / 1e7;
    }
};

}  // namespace memusagestat
