// SPDX-License-Identifier: MIT
// Durations as users type them (--long-lived=500ms): a decimal number and a unit.
#pragma once

#include <optional>
#include <string>

namespace memusagestat {

// "500ms", "2s", "1.5s", "100us" (or "100µs"), "250ns", "2min": the duration in seconds.
// Empty for anything else: no unit, a negative or unreadable number, an unknown unit.
std::optional<double> parse_duration(const std::string& text);

// The same message for every tool: what a bad duration was and what is wanted.
std::string duration_error(const std::string& text, const std::string& option);

// A duration for a report: "1.5 s", "300 ms", "12 µs".
std::string format_duration(double seconds);

}  // namespace memusagestat
