// SPDX-License-Identifier: MIT
#include "reports/duration.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace memusagestat {

std::optional<double> parse_duration(const std::string& text) {
    const char* begin = text.data();
    const char* end = begin + text.size();
    double number = 0;
    auto [stop, error] = std::from_chars(begin, end, number, std::chars_format::fixed);
    if (error != std::errc() || stop == begin || !std::isfinite(number) || number < 0)
        return std::nullopt;
    const std::string unit(stop, end);
    double scale = 0;
    if (unit == "s")
        scale = 1;
    else if (unit == "ms")
        scale = 1e-3;
    else if (unit == "us" || unit == "\xc2\xb5s")  // µs
        scale = 1e-6;
    else if (unit == "ns")
        scale = 1e-9;
    else if (unit == "min")
        scale = 60;
    else
        return std::nullopt;
    return number * scale;
}

std::string duration_error(const std::string& text, const std::string& option) {
    return "invalid duration '" + text + "' for '" + option +
           "' (want a number and a unit: ns, us, ms, s or min, as in 500ms or 1.5s)";
}

std::string format_duration(double seconds) {
    char text[48];
    if (seconds >= 1)
        std::snprintf(text, sizeof text, "%.2f s", seconds);
    else if (seconds >= 1e-3)
        std::snprintf(text, sizeof text, "%.1f ms", seconds * 1e3);
    else
        std::snprintf(text, sizeof text, "%.0f \xc2\xb5s", seconds * 1e6);
    return text;
}

}  // namespace memusagestat
