// The text printed at exit. Pure: it formats a Stats snapshot into a sink, so tests
// can check it byte for byte and the collector can write it without allocating.
#pragma once

#include <cstddef>

#include "memusage/stats.h"

namespace memusage {

struct SummaryStyle {
    bool color = true;       // glibc's escape sequences; off prints the same text without them
    bool mmap_rows = false;  // MEMUSAGE_TRACE_MMAP: the five mmap rows
};

// Receives the text in pieces; `context` is passed through untouched.
using SummarySink = void (*)(void* context, const char* text, size_t length);

void write_summary(const Stats& stats, const SummaryStyle& style, SummarySink sink, void* context);

}  // namespace memusage
