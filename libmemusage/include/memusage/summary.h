// SPDX-License-Identifier: MIT
// The text printed at exit. Pure: it formats a Stats snapshot into a sink, so tests
// can check it byte for byte and the collector can write it without allocating.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memusage/gate_report.h"
#include "memusage/stats.h"

namespace memusage {

struct SummaryStyle {
    bool color = true;       // glibc's escape sequences; off prints the same text without them
    bool mmap_rows = false;  // MEMUSAGE_TRACE_MMAP: the five mmap rows
};

// Receives the text in pieces; `context` is passed through untouched.
using SummarySink = void (*)(void* context, const char* text, size_t length);

void write_summary(const Stats& stats, const SummaryStyle& style, SummarySink sink, void* context);

// After the summary, when the limit or failure injection was on: what they refused.
void write_gate_report(const GateReport& report, const SummaryStyle& style, SummarySink sink,
                       void* context);

// One thread's share of the run, for the per-thread table (MEMUSAGE_THREADS).
struct ThreadRow {
    uint64_t serial;  // the order threads first counted in: the table's order
    int64_t tid;
    char name[16];  // as pthread_setname_np sets it
    uint64_t calls, allocated, freed;
    int64_t net;  // what the thread's calls added to the heap, less what they took away
    uint64_t stack_peak;
};

// The table, rows in `serial` order (the caller sorts).
void write_thread_table(const ThreadRow* rows, size_t count, const SummaryStyle& style,
                        SummarySink sink, void* context);

}  // namespace memusage
