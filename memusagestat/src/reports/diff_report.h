// SPDX-License-Identifier: MIT
// memusagestat --diff BEFORE AFTER: what changed between two runs. Two sites files: the
// totals (heap peak, allocated, leaked, temporary) and the sites that changed most in bytes
// at the peak, leaked, allocated and calls, largest change first. Sites are matched by
// their functions and file:line, never by address, so two builds of a program compare.
// Two data files: their totals only (peaks and calls). --fail-if-grown=LIMIT judges the
// heap peak's growth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "memusage/status.h"

namespace memusagestat {

// The exit status of memusagestat --diff when the heap peak grew beyond --fail-if-grown:
// apart from 1 (an error) and from anything --leak-exitcode is likely to be given.
inline constexpr int kGrownExitStatus = 3;

// How much the heap peak may grow: a percentage of BEFORE's ("10%", "2.5%"), or bytes
// ("65536", "64k", "1M").
struct GrowthLimit {
    bool is_percent = false;
    double percent = 0;
    uint64_t bytes = 0;
};
// False for anything else.
bool parse_growth_limit(const std::string& text, GrowthLimit& limit);

struct DiffOptions {
    unsigned top = 10;  // sites per ranking
    std::optional<GrowthLimit> fail_if_grown;
};

struct DiffResult {
    std::string text;
    bool grown_beyond_limit = false;
};

// Failing, a message for the user.
memusage::Status diff_files(const std::string& before, const std::string& after,
                            const DiffOptions& options, DiffResult& result);

}  // namespace memusagestat
