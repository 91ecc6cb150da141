// SPDX-License-Identifier: MIT
// --html-window=START..END: the part of a run a report covers, in seconds since its start.
#pragma once

#include <optional>
#include <string>

namespace memusagestat {

struct TimeWindow {
    double start = 0;
    std::optional<double> end;  // none: to the end of the run

    bool holds(double seconds) const { return seconds >= start && (!end || seconds <= *end); }
    bool overlaps(double from, double to) const { return to >= start && (!end || from <= *end); }
};

// "1.5s..2s", "100ms..", "..2s": each side a duration as --long-lived takes it (500ms, 2s),
// either side may be left out, not both. Empty for anything else, or an end before the start.
std::optional<TimeWindow> parse_time_window(const std::string& text);

// What a bad window was and what is wanted.
std::string time_window_error(const std::string& text);

// "1.50 s..2.00 s", "100 ms..the end": for the report's notes.
std::string describe(const TimeWindow& window);

}  // namespace memusagestat
