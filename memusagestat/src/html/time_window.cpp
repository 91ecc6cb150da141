// SPDX-License-Identifier: MIT
#include "html/time_window.h"

#include "reports/duration.h"

namespace memusagestat {

std::optional<TimeWindow> parse_time_window(const std::string& text) {
    const size_t dots = text.find("..");
    if (dots == std::string::npos || text.find("..", dots + 2) != std::string::npos)
        return std::nullopt;
    const std::string from = text.substr(0, dots), to = text.substr(dots + 2);
    if (from.empty() && to.empty()) return std::nullopt;
    TimeWindow window;
    if (!from.empty()) {
        std::optional<double> start = parse_duration(from);
        if (!start) return std::nullopt;
        window.start = *start;
    }
    if (!to.empty()) {
        window.end = parse_duration(to);
        if (!window.end || *window.end < window.start) return std::nullopt;
    }
    return window;
}

std::string time_window_error(const std::string& text) {
    return "invalid window '" + text +
           "' for '--html-window' (want START..END, each a number and a unit: ns, us, ms, s "
           "or min, the end after the start; either may be left out, as in 1.5s..2s or 100ms..)";
}

std::string describe(const TimeWindow& window) {
    return format_duration(window.start) + ".." +
           (window.end ? format_duration(*window.end) : std::string("the end"));
}

}  // namespace memusagestat
