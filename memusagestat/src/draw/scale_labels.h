// SPDX-License-Identifier: MIT
// The text of the vertical scales' labels.
#pragma once

#include <cstdint>
#include <string>

namespace memusagestat {

// `value` bytes written in the unit the scale's top calls for, like glibc: plain bytes
// below 1024, `k` (1024 bytes) below 100 MiB, `M` (1024 k) above. Below 10 units a label
// keeps one decimal so that the quarters of a small scale stay distinct ("0.2k", not "0k").
// Digits are truncated, never rounded up: a label never claims more than the data reached.
std::string scale_label(uint64_t value, uint64_t scale_top);

// The value of the labelled line `quarter` (0..4) of a scale whose top is `scale_top`.
uint64_t quarter_value(uint64_t scale_top, unsigned quarter);

}  // namespace memusagestat
