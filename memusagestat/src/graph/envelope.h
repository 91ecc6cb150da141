// SPDX-License-Identifier: MIT
// The per-pixel-column envelope: every record lands in one column, which keeps the
// minimum, maximum and last value of each curve. However many records share a column,
// nothing is lost (spikes survive as the column's extent) and memory is fixed by the width.
#pragma once

#include <memusage/record.h>

#include <cstdint>
#include <span>
#include <vector>

namespace memusagestat {

struct ValueRange {
    uint64_t min = UINT64_MAX;
    uint64_t max = 0;
    uint64_t last = 0;

    bool empty() const { return min > max; }

    void add(uint64_t value) {
        if (value < min) min = value;
        if (value > max) max = value;
        last = value;
    }
};

struct Column {
    ValueRange heap, stack, total;  // total = heap + stack, saturating
    uint64_t last_time = 0;         // of the last record placed here
    uint64_t before_last_time = 0;  // of the record before it, when records >= 2
    uint64_t records = 0;           // 0: no record fell into this column

    bool empty() const { return records == 0; }
};

class EnvelopeSeries {
  public:
    // x linear in the number of calls: event i of `event_count` goes to column
    // i * columns / event_count.
    // `with_total` false leaves every column's total empty: a third less work per record
    // when the graph does not draw it.
    static EnvelopeSeries by_call(unsigned columns, uint64_t event_count, bool with_total = true);
    // x linear in time from start_time to end_time (end_time > start_time); a record
    // outside that span (time running backwards after a fork, say) goes to the nearest edge.
    static EnvelopeSeries by_time(unsigned columns, uint64_t start_time, uint64_t end_time,
                                  bool with_total = true);

    // Call placement: the next event fed is event `index` of the file, so that a part of
    // the file can be built on its own (one part per thread). Time placement ignores it.
    void skip_to_event(uint64_t index);

    // Feed the events in file order, in as many pieces as convenient. Timeless records
    // (time 0, what a kill leaves) keep their place on the call axis but are not drawn.
    void add(std::span<const memusage::Record> events);

    // Folds in a series of the same placement built from the events that follow this
    // series' own: the result is the series of both parts fed in order.
    void merge_later(const EnvelopeSeries& later);

    std::span<const Column> columns() const { return columns_; }
    // Where a column's points are drawn, in columns from the plot's left edge: the column's
    // centre, except by calls with fewer records than columns. There the axis runs from
    // call 0 (the run's start) to the last call, and record i sits at call i + 1, so that a
    // run of a single allocation is a line across the plot, not a dot in its corner.
    double point_x(std::size_t column) const;
    uint64_t max_heap() const;
    uint64_t max_stack() const;
    uint64_t max_total() const;
    uint64_t timeless_records() const { return timeless_records_; }
    // Records whose heap is beyond any address space (is_plausible_heap): their heap and
    // total are left out, their stack kept. A column of only such records has empty heap
    // and total ranges (ValueRange::empty).
    uint64_t implausible_heap_records() const { return implausible_heap_records_; }

  private:
    EnvelopeSeries(unsigned columns, bool time_based, bool with_total);
    void add_by_call(std::span<const memusage::Record> events);
    void add_by_time(std::span<const memusage::Record> events);
    uint64_t first_event_of(uint64_t column) const;

    std::vector<Column> columns_;
    bool time_based_;
    bool with_total_;
    uint64_t timeless_records_ = 0;
    uint64_t implausible_heap_records_ = 0;
    // call placement
    uint64_t event_count_ = 0;
    uint64_t next_event_ = 0;
    uint64_t column_ = 0;
    uint64_t column_end_ = 0;  // first event of the column after column_
    // time placement
    uint64_t start_time_ = 0;
    uint64_t end_time_ = 0;
    double columns_per_tick_ = 0;
};

}  // namespace memusagestat
