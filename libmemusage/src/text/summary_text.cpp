// SPDX-License-Identifier: MIT
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "memusage/summary.h"

namespace memusage {
namespace {

// Collects formatted text in a fixed buffer and hands it to the sink in large
// pieces: the collector calls this at exit, where it must not allocate.
class SummaryBuffer {
  public:
    SummaryBuffer(SummarySink sink, void* context) : sink_(sink), context_(context) {}
    ~SummaryBuffer() { flush(); }

    void printf(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        if (sizeof(buffer_) - used_ < kLineMax) flush();
        va_list args;
        va_start(args, format);
        int n = vsnprintf(buffer_ + used_, sizeof(buffer_) - used_, format, args);
        va_end(args);
        size_t room = sizeof(buffer_) - used_ - 1;
        if (n > 0) used_ += static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room;
    }
    void text(const char* s) { printf("%s", s); }

  private:
    static constexpr size_t kLineMax = 256;
    void flush() {
        if (used_ > 0) sink_(context_, buffer_, used_);
        used_ = 0;
    }
    SummarySink sink_;
    void* context_;
    char buffer_[4096];
    size_t used_ = 0;
};

struct Escapes {
    const char* title;  // bold green
    const char* title_end;
    const char* header;  // underlined blue
    const char* header_end;
    const char* label;  // blue
    const char* label_end;
    const char* failed;  // bold on red, only where calls failed
    const char* row_end;
    const char* bar;  // white on red
    const char* bar_end;
};

constexpr Escapes kColor = {"\x1b[01;32m", "\x1b[0;0m", "\x1b[04;34m", "\x1b[0m",
                            "\x1b[00;34m", "\x1b[0m",   "\x1b[01;41m", "\x1b[00;00m",
                            "\x1b[41;37m", "\x1b[0;0m"};
constexpr Escapes kPlain = {"", "", "", "", "", "", "", "", "", ""};

void allocation_row(SummaryBuffer& out, const Escapes& e, const char* label, const Stats& stats,
                    Call call) {
    out.printf("%s%s|%s %10" PRIu64 "   %12" PRIu64 "   %s%12" PRIu64 "%s", e.label, label,
               e.label_end, stats.calls_of(call), stats.bytes_of(call),
               stats.failed_of(call) != 0 ? e.failed : "", stats.failed_of(call), e.row_end);
}

void histogram(SummaryBuffer& out, const Escapes& e, const Stats& stats) {
    uint64_t largest = 0;
    for (uint64_t count : stats.histogram) largest = count > largest ? count : largest;
    if (largest == 0) return;
    uint64_t all_calls = stats.all_calls();
    char bar[51];
    for (size_t bucket = 0; bucket < kHistogramBuckets; ++bucket) {
        uint64_t count = stats.histogram[bucket];
        if (count == 0) continue;
        if (bucket == kHistogramLarge) {
            out.printf("   large   %12" PRIu64 " ", count);
        } else {
            int low = static_cast<int>(bucket * kHistogramBucketBytes);
            out.printf("%5d-%-5d%12" PRIu64 " ", low, low + 15, count);
        }
        uint64_t percent = count * 100 / all_calls;
        if (percent == 0)
            out.text(" <1% ");
        else
            out.printf("%3d%% ", static_cast<int>(percent));
        size_t width = static_cast<size_t>(count * 50 / largest);
        memset(bar, '=', width);
        bar[width] = '\0';
        out.printf("%s%s%s\n", e.bar, bar, e.bar_end);
    }
}

const char* call_name(Call call) {
    switch (call) {
        case Call::malloc:
            return "malloc";
        case Call::realloc:
            return "realloc";
        case Call::calloc:
            return "calloc";
        case Call::aligned:
            return "aligned";
        case Call::free:
            return "free";
        case Call::mmap_r:
        case Call::mmap_w:
        case Call::mmap_a:
            return "mmap";
        case Call::mremap:
            return "mremap";
        case Call::munmap:
            return "munmap";
    }
    return "?";
}

const char* calls_word(uint64_t count) { return count == 1 ? "call" : "calls"; }

void injection_rule(SummaryBuffer& out, const GateConfig& config) {
    switch (config.injection) {
        case Injection::none:
            break;
        case Injection::nth_call:
            out.printf("fail allocation call %" PRIu64, config.nth);
            break;
        case Injection::from_nth_call:
            out.printf("fail every allocation call from %" PRIu64 " on", config.nth);
            break;
        case Injection::random:
            out.printf("fail each allocation call with probability %s, seed %" PRIu64,
                       config.probability.text, config.seed);
            break;
    }
}

}  // namespace

void write_gate_report(const GateReport& report, const SummaryStyle& style, SummarySink sink,
                       void* context) {
    const Escapes& e = style.color ? kColor : kPlain;
    SummaryBuffer out(sink, context);
    if (report.config.limited) {
        out.printf("%sAllocation limit:%s %" PRIu64 " bytes; %" PRIu64 " %s refused", e.title,
                   e.title_end, report.config.limit, report.refused, calls_word(report.refused));
        if (report.refused != 0)
            out.printf(", the first a %s of %" PRIu64 " bytes at heap size %" PRIu64,
                       call_name(report.first_refused_call), report.first_refused_size,
                       report.first_refused_heap);
        out.text("\n");
    }
    if (report.config.injection != Injection::none) {
        out.printf("%sFailure injection:%s ", e.title, e.title_end);
        injection_rule(out, report.config);
        out.printf("; %" PRIu64 " %s made to fail", report.injected, calls_word(report.injected));
        uint64_t listed =
            report.injected < GateReport::kListed ? report.injected : GateReport::kListed;
        for (uint64_t i = 0; i < listed; ++i)
            out.printf("%s #%" PRIu64 " %s", i == 0 ? ":" : ",", report.listed[i].number,
                       call_name(report.listed[i].call));
        if (report.injected > listed)
            out.printf(", and %" PRIu64 " more", report.injected - listed);
        out.text("\n");
    }
}

void write_thread_table(const ThreadRow* rows, size_t count, const SummaryStyle& style,
                        SummarySink sink, void* context) {
    const Escapes& e = style.color ? kColor : kPlain;
    SummaryBuffer out(sink, context);
    out.printf("%sThreads:%s %zu\n", e.title, e.title_end, count);
    out.printf(
        "%s       tid  name                   calls      allocated          freed  "
        "       net  stack peak%s\n",
        e.header, e.header_end);
    for (size_t i = 0; i < count; ++i) {
        const ThreadRow& row = rows[i];
        out.printf("%10" PRId64 "  %-15.15s %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %11" PRId64
                   " %11" PRIu64 "\n",
                   row.tid, row.name[0] != '\0' ? row.name : "-", row.calls, row.allocated,
                   row.freed, row.net, row.stack_peak);
    }
}

void write_summary(const Stats& stats, const SummaryStyle& style, SummarySink sink, void* context) {
    const Escapes& e = style.color ? kColor : kPlain;
    SummaryBuffer out(sink, context);
    out.printf("\n%sMemory usage summary:%s heap total: %" PRIu64 ", heap peak: %" PRIu64
               ", stack peak: %" PRIu64 "\n",
               e.title, e.title_end, stats.heap_total(), stats.heap_peak, stats.stack_peak);
    out.printf("%s         total calls   total memory   failed calls%s\n", e.header, e.header_end);
    allocation_row(out, e, " malloc", stats, Call::malloc);
    out.text("\n");
    allocation_row(out, e, "realloc", stats, Call::realloc);
    out.printf("  (nomove:%" PRId64 ", dec:%" PRId64 ", free:%" PRId64 ")\n",
               static_cast<int64_t>(stats.realloc_nomove), static_cast<int64_t>(stats.realloc_dec),
               static_cast<int64_t>(stats.realloc_free));
    allocation_row(out, e, " calloc", stats, Call::calloc);
    out.text("\n");
    // Our addition; left out when unused so that output stays glibc's byte for byte.
    if (stats.calls_of(Call::aligned) != 0) {
        allocation_row(out, e, "aligned", stats, Call::aligned);
        out.text("\n");
    }
    out.printf("%s   free|%s %10" PRIu64 "   %12" PRIu64 "\n", e.label, e.label_end,
               stats.calls_of(Call::free), stats.bytes_of(Call::free));
    if (style.mmap_rows) {
        allocation_row(out, e, "mmap(r)", stats, Call::mmap_r);
        out.text("\n");
        allocation_row(out, e, "mmap(w)", stats, Call::mmap_w);
        out.text("\n");
        allocation_row(out, e, "mmap(a)", stats, Call::mmap_a);
        out.text("\n");
        allocation_row(out, e, " mremap", stats, Call::mremap);
        out.printf("  (nomove: %" PRId64 ", dec:%" PRId64 ")\n",
                   static_cast<int64_t>(stats.mremap_nomove),
                   static_cast<int64_t>(stats.mremap_dec));
        allocation_row(out, e, " munmap", stats, Call::munmap);
        out.text("\n");
    }
    out.printf("%sHistogram for block sizes:%s\n", e.title, e.title_end);
    histogram(out, e, stats);
}

}  // namespace memusage
