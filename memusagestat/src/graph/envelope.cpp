// SPDX-License-Identifier: MIT
#include "graph/envelope.h"

#include <memusage/wide_arithmetic.h>

#include <algorithm>

#include "read/profile.h"

namespace memusagestat {

using memusage::Record;

EnvelopeSeries::EnvelopeSeries(unsigned columns, bool time_based, bool with_total)
    : columns_(std::max(columns, 1u)), time_based_(time_based), with_total_(with_total) {}

EnvelopeSeries EnvelopeSeries::by_call(unsigned columns, uint64_t event_count, bool with_total) {
    EnvelopeSeries series(columns, false, with_total);
    series.event_count_ = event_count;
    series.column_end_ = series.first_event_of(1);
    return series;
}

EnvelopeSeries EnvelopeSeries::by_time(unsigned columns, uint64_t start_time, uint64_t end_time,
                                       bool with_total) {
    EnvelopeSeries series(columns, true, with_total);
    series.start_time_ = start_time;
    series.end_time_ = std::max(end_time, start_time + 1);
    series.columns_per_tick_ = static_cast<double>(series.columns_.size() - 1) /
                               static_cast<double>(series.end_time_ - start_time);
    return series;
}

uint64_t EnvelopeSeries::first_event_of(uint64_t column) const {
    if (column >= columns_.size()) return UINT64_MAX;
    // ceil(column * n / columns) without overflow for any n.
    return memusage::multiply_divide_up(column, event_count_, columns_.size());
}

double EnvelopeSeries::point_x(std::size_t column) const {
    const double centre = static_cast<double>(column) + 0.5;
    const uint64_t columns = columns_.size();
    if (time_based_ || event_count_ == 0 || event_count_ >= columns) return centre;
    // Sparse: a column holds at most one record, the first of the column's share.
    const uint64_t event = first_event_of(column);
    return static_cast<double>(event + 1) * static_cast<double>(columns) /
           static_cast<double>(event_count_);
}

void EnvelopeSeries::skip_to_event(uint64_t index) {
    if (time_based_ || event_count_ == 0) return;
    next_event_ = index;
    const uint64_t column =
        memusage::multiply_divide(std::min(index, event_count_), columns_.size(), event_count_);
    column_ = std::min<uint64_t>(column, columns_.size() - 1);
    column_end_ = first_event_of(column_ + 1);
}

void EnvelopeSeries::merge_later(const EnvelopeSeries& later) {
    const std::size_t shared = std::min(columns_.size(), later.columns_.size());
    for (std::size_t c = 0; c < shared; ++c) {
        const Column& from = later.columns_[c];
        Column& into = columns_[c];
        if (from.empty()) continue;
        if (into.empty()) {
            into = from;
            continue;
        }
        for (ValueRange Column::*curve : {&Column::heap, &Column::stack, &Column::total}) {
            if ((from.*curve).empty()) continue;
            ValueRange& range = into.*curve;
            range.min = std::min(range.min, (from.*curve).min);
            range.max = std::max(range.max, (from.*curve).max);
            range.last = (from.*curve).last;
        }
        into.before_last_time = from.records >= 2 ? from.before_last_time : into.last_time;
        into.last_time = from.last_time;
        into.records += from.records;
    }
    timeless_records_ += later.timeless_records_;
    implausible_heap_records_ += later.implausible_heap_records_;
}

void EnvelopeSeries::add(std::span<const Record> events) {
    if (time_based_)
        add_by_time(events);
    else
        add_by_call(events);
}

namespace {

// One run of events that share a column; kept in locals so that the loop can keep them in
// registers.
// Returns how many were timeless, and left out; `implausible` gains the records whose heap
// is left out of the heap and total curves.
template <bool kWithTotal>
uint64_t accumulate(Column& column, std::span<const Record> run, uint64_t& implausible) {
    ValueRange heap = column.heap, stack = column.stack, total = column.total;
    uint64_t last_time = column.last_time, before_last_time = column.before_last_time;
    uint64_t taken = 0;
    for (const Record& r : run) {
        if (is_timeless(r)) [[unlikely]]
            continue;
        if (is_plausible_heap(r.heap)) [[likely]] {
            heap.add(r.heap);
            if constexpr (kWithTotal) total.add(saturating_add(r.heap, r.stack));
        } else {
            ++implausible;
        }
        stack.add(r.stack);
        before_last_time = last_time;
        last_time = r.time();
        ++taken;
    }
    column.heap = heap;
    column.stack = stack;
    column.total = total;
    column.last_time = last_time;
    column.before_last_time = before_last_time;
    column.records += taken;
    return run.size() - taken;
}

}  // namespace

void EnvelopeSeries::add_by_call(std::span<const Record> events) {
    while (!events.empty()) {
        while (next_event_ >= column_end_ && column_ + 1 < columns_.size()) {
            ++column_;
            column_end_ = first_event_of(column_ + 1);
        }
        // Events beyond the announced count (a caller's mistake) pile into the last column.
        const uint64_t room = column_end_ > next_event_ ? column_end_ - next_event_ : UINT64_MAX;
        const auto run = static_cast<std::size_t>(std::min<uint64_t>(room, events.size()));
        timeless_records_ += with_total_ ? accumulate<true>(columns_[column_], events.first(run),
                                                            implausible_heap_records_)
                                         : accumulate<false>(columns_[column_], events.first(run),
                                                             implausible_heap_records_);
        next_event_ += run;
        events = events.subspan(run);
    }
}

void EnvelopeSeries::add_by_time(std::span<const Record> events) {
    const double last_column = static_cast<double>(columns_.size() - 1);
    for (const Record& r : events) {
        const uint64_t t = std::clamp(r.time(), start_time_, end_time_);
        const double x = static_cast<double>(t - start_time_) * columns_per_tick_;
        const auto column = static_cast<std::size_t>(std::min(x, last_column));
        timeless_records_ +=
            with_total_ ? accumulate<true>(columns_[column], {&r, 1}, implausible_heap_records_)
                        : accumulate<false>(columns_[column], {&r, 1}, implausible_heap_records_);
    }
}

namespace {

template <typename Field>
uint64_t largest(std::span<const Column> columns, Field field) {
    uint64_t result = 0;
    for (const Column& c : columns)
        if (!c.empty()) result = std::max(result, (c.*field).max);
    return result;
}

}  // namespace

uint64_t EnvelopeSeries::max_heap() const { return largest(columns(), &Column::heap); }
uint64_t EnvelopeSeries::max_stack() const { return largest(columns(), &Column::stack); }
uint64_t EnvelopeSeries::max_total() const { return largest(columns(), &Column::total); }

}  // namespace memusagestat
