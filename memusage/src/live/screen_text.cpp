// SPDX-License-Identifier: MIT
#include "live/screen_text.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "memusage/stats.h"

namespace memusage::live {
namespace {

std::string format(const char* pattern, auto... values) {
    char line[256];
    std::snprintf(line, sizeof line, pattern, values...);
    return line;
}

std::string elapsed_text(double seconds) {
    auto whole = static_cast<long>(seconds);
    if (whole >= 3600) return format("%ld:%02ld:%02ld", whole / 3600, whole / 60 % 60, whole % 60);
    return format("%ld:%02ld", whole / 60, whole % 60);
}

// Columns a line takes: UTF-8 continuation bytes take none.
size_t columns(const std::string& line) {
    return static_cast<size_t>(
        std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string fitted(std::string line, int width) {
    while (columns(line) > static_cast<size_t>(width)) {
        // Drop a whole character, continuation bytes included.
        size_t end = line.size() - 1;
        while (end > 0 && (line[end] & 0xC0) == 0x80) --end;
        line.erase(end);
    }
    return line;
}

}  // namespace

std::string sparkline(const std::vector<uint64_t>& values, bool unicode) {
    static const char* const kBlocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char kAscii[] = "_.-:=+*#";
    uint64_t top = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
    std::string line;
    for (uint64_t value : values) {
        // 0 .. 7, the top value at 7; a heap of 0 at the bottom.
        size_t level = top == 0 ? 0 : static_cast<size_t>((value * 7 + top / 2) / top);
        if (unicode)
            line += kBlocks[level];
        else
            line += kAscii[level];
    }
    return line;
}

namespace {

// The title, and under it, in the line otherwise left blank, the program the view now
// follows after an exec: the rows below keep their places.
void add_title(std::vector<std::string>& lines, const ScreenState& state) {
    std::string status = state.ended ? "  [ended]" : state.paused ? "  [paused]" : "";
    lines.push_back(format("memusage: %s (pid %ld)  elapsed %s%s", state.program.c_str(), state.pid,
                           elapsed_text(state.elapsed_seconds).c_str(), status.c_str()));
    lines.push_back(state.not_profiled ? "now: " + state.program + " (exec, not profiled)"
                    : state.exec_from.empty()
                        ? std::string()
                        : "now: " + state.program + " (exec, was " + state.exec_from + ")");
}

// The latest figures, the calls, and the heap's course as a sparkline.
void add_figures(std::vector<std::string>& lines, const FigureHistory& history,
                 const ScreenState& state) {
    const live_format::Figures& now = history.latest();
    auto calls = [&](Call call) { return now.calls[static_cast<unsigned>(call)]; };
    uint64_t failed = 0;
    for (uint64_t count : now.failed) failed += count;
    lines.push_back(format("heap now   %14" PRIu64 " bytes    heap peak  %14" PRIu64 " bytes",
                           now.heap_now, now.heap_peak));
    lines.push_back(
        format("stack peak %14" PRIu64 " bytes    threads    %14u", now.stack_peak, now.threads));
    lines.push_back(format("allocations/s %11.0f          bytes/s    %14.0f",
                           history.allocations_per_second(), history.bytes_per_second()));
    lines.push_back(format("calls: malloc %" PRIu64 "  calloc %" PRIu64 "  realloc %" PRIu64
                           "  free %" PRIu64 "  failed %" PRIu64,
                           calls(Call::malloc), calls(Call::calloc), calls(Call::realloc),
                           calls(Call::free), failed));
    lines.push_back("");
    std::vector<uint64_t> course = history.heap_course();
    uint64_t top = course.empty() ? 0 : *std::max_element(course.begin(), course.end());
    lines.push_back(format("heap, last %zu s (top %" PRIu64 " bytes):", course.size(), top));
    lines.push_back(sparkline(course, state.unicode));
    lines.push_back("");
}

// The threads' table. The keys' line stays at the bottom; the threads take what is left,
// or with sites on a few rows, and the sites the rest.
void add_threads(std::vector<std::string>& lines, const std::vector<ThreadLine>& threads,
                 const ScreenState& state, int height) {
    lines.push_back(
        format("%8s  %-16s %16s %16s %12s", "tid", "thread", "held", "peak held", "calls"));
    int room = height - static_cast<int>(lines.size()) - 1;
    if (state.sites && room > kThreadRowsWithSites + 3) room = kThreadRowsWithSites;
    for (const ThreadLine& thread : threads) {
        if (room-- <= 0) break;
        std::string tid = thread.tid == 0 ? std::string() : std::to_string(thread.tid);
        std::string peak = thread.tid == 0 ? std::string() : std::to_string(thread.held_peak);
        lines.push_back(format("%8s  %-16.16s %16" PRId64 " %16s %12" PRIu64, tid.c_str(),
                               thread.name.c_str(), thread.held, peak.c_str(), thread.calls));
    }
}

// The sites' table, in the rows left above the keys' line.
void add_sites(std::vector<std::string>& lines, const std::vector<SiteLine>& sites, int height) {
    lines.push_back("");
    lines.push_back(format("%16s %10s  %s", "held now", "blocks", "top sites held now"));
    int site_room = height - static_cast<int>(lines.size()) - 1;
    if (sites.empty() && site_room > 0) lines.push_back(format("%16s", "(none)"));
    for (const SiteLine& site : sites) {
        if (site_room-- <= 0) break;
        lines.push_back(
            format("%16" PRIu64 " %10" PRIu64 "  %s", site.held, site.blocks, site.name.c_str()));
    }
}

// The keys' line at the bottom, blank lines down to it, at most `height` lines in all,
// each cut to `width` columns.
void add_keys_and_fit(std::vector<std::string>& lines, const ScreenState& state, int width,
                      int height) {
    while (static_cast<int>(lines.size()) < height - 1) lines.push_back("");
    lines.push_back(
        format("sorted by %s   keys: s sort  p pause  q quit", order_name(state.order)));
    if (static_cast<int>(lines.size()) > height)
        lines.erase(lines.begin() + height - 1, lines.end() - 1);
    for (std::string& line : lines) line = fitted(line, width);
}

}  // namespace

std::vector<std::string> screen_lines(const FigureHistory& history, const ScreenState& state,
                                      const std::vector<ThreadLine>& threads, int width, int height,
                                      const std::vector<SiteLine>& sites) {
    std::vector<std::string> lines;
    add_title(lines, state);
    if (history.empty()) {
        lines.push_back(state.not_profiled ? "no live figures: the program it exec'd publishes none"
                                           : "waiting for the first figures...");
    } else {
        add_figures(lines, history, state);
        add_threads(lines, threads, state, height);
        if (state.sites) add_sites(lines, sites, height);
    }
    add_keys_and_fit(lines, state, width, height);
    return lines;
}

}  // namespace memusage::live
