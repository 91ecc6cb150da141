// SPDX-License-Identifier: MIT
#include "live/figure_history.h"

#include <algorithm>

#include "memusage/stats.h"

namespace memusage::live {
namespace {

constexpr Call kAllocatingCalls[] = {Call::malloc, Call::calloc, Call::realloc, Call::aligned};

}  // namespace

ThreadOrder next_order(ThreadOrder order) {
    switch (order) {
        case ThreadOrder::held:
            return ThreadOrder::peak;
        case ThreadOrder::peak:
            return ThreadOrder::calls;
        case ThreadOrder::calls:
            return ThreadOrder::tid;
        case ThreadOrder::tid:
            return ThreadOrder::held;
    }
    return ThreadOrder::held;
}

const char* order_name(ThreadOrder order) {
    switch (order) {
        case ThreadOrder::held:
            return "held";
        case ThreadOrder::peak:
            return "peak";
        case ThreadOrder::calls:
            return "calls";
        case ThreadOrder::tid:
            return "tid";
    }
    return "";
}

uint64_t allocating_calls(const live_format::Figures& figures) {
    uint64_t total = 0;
    for (Call call : kAllocatingCalls) total += figures.calls[static_cast<unsigned>(call)];
    return total;
}

uint64_t allocated_bytes(const live_format::Figures& figures) {
    uint64_t total = 0;
    for (Call call : kAllocatingCalls) total += figures.bytes[static_cast<unsigned>(call)];
    return total;
}

void FigureHistory::add(const live_format::Figures& figures) {
    // The same copy twice (the process published nothing since) adds no second.
    if (!readings_.empty() && readings_.back().publications == figures.publications) return;
    readings_.push_back(figures);
    if (readings_.size() > kSeconds) readings_.pop_front();
}

double FigureHistory::per_second(uint64_t (*measure)(const live_format::Figures&)) const {
    if (readings_.size() < 2) return 0;
    const live_format::Figures& last = readings_.back();
    const live_format::Figures& before = readings_[readings_.size() - 2];
    if (last.published_ns <= before.published_ns) return 0;
    double seconds = static_cast<double>(last.published_ns - before.published_ns) / 1e9;
    return static_cast<double>(measure(last) - measure(before)) / seconds;
}

double FigureHistory::allocations_per_second() const { return per_second(allocating_calls); }
double FigureHistory::bytes_per_second() const { return per_second(allocated_bytes); }

std::vector<uint64_t> FigureHistory::heap_course() const {
    std::vector<uint64_t> course;
    for (const live_format::Figures& reading : readings_) course.push_back(reading.heap_now);
    return course;
}

std::vector<ThreadLine> FigureHistory::threads(
    ThreadOrder order, const std::function<std::string(uint64_t)>& name_of) const {
    std::vector<ThreadLine> lines;
    if (readings_.empty()) return lines;
    const live_format::Figures& last = readings_.back();
    for (uint32_t i = 0; i < last.thread_rows && i < live_format::kThreadRows; ++i) {
        const live_format::ThreadFigures& row = last.rows[i];
        lines.push_back({row.tid, name_of(row.tid), row.held, row.held_peak, row.calls});
    }
    auto key = [order](const ThreadLine& line) -> int64_t {
        switch (order) {
            case ThreadOrder::held:
                return line.held;
            case ThreadOrder::peak:
                return line.held_peak;
            case ThreadOrder::calls:
                return static_cast<int64_t>(line.calls);
            case ThreadOrder::tid:
                return -static_cast<int64_t>(line.tid);
        }
        return 0;
    };
    std::stable_sort(lines.begin(), lines.end(),
                     [&](const ThreadLine& a, const ThreadLine& b) { return key(a) > key(b); });
    if (last.threads > last.thread_rows)
        lines.push_back({0, "(" + std::to_string(last.threads - last.thread_rows) + " more)",
                         last.others.held, 0, last.others.calls});
    return lines;
}

}  // namespace memusage::live
