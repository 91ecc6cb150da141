// SPDX-License-Identifier: MIT
#include "draw/scale_labels.h"

#include <memusage/wide_arithmetic.h>

namespace memusagestat {

std::string scale_label(uint64_t value, uint64_t scale_top) {
    constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024;
    if (scale_top < kKiB) return std::to_string(value);
    const uint64_t unit = scale_top < 100 * kMiB ? kKiB : kMiB;
    const char* suffix = unit == kKiB ? "k" : "M";
    const uint64_t whole = value / unit;
    const uint64_t tenths = (value % unit) * 10 / unit;
    if (whole < 10 && tenths != 0)
        return std::to_string(whole) + "." + std::to_string(tenths) + suffix;
    return std::to_string(whole) + suffix;
}

uint64_t quarter_value(uint64_t scale_top, unsigned quarter) {
    return memusage::multiply_divide(scale_top, quarter, 4);
}

}  // namespace memusagestat
