// SPDX-License-Identifier: MIT
#include "graph/envelope.h"

#include <gtest/gtest.h>

#include <vector>

#include "read/profile.h"
#include "records.h"

using memusagestat::Column;
using memusagestat::EnvelopeSeries;
using stat_test::record;

namespace {

// Event i at time i + 1: no event has time 0.
std::vector<memusage::Record> ramp(uint64_t count) {
    std::vector<memusage::Record> events;
    for (uint64_t i = 0; i < count; ++i) events.push_back(record(i, 2 * i, i + 1));
    return events;
}

}  // namespace

TEST(Envelope, ByCallSpreadsEventsEvenlyOverColumns) {
    auto series = EnvelopeSeries::by_call(10, 100);
    series.add(ramp(100));
    ASSERT_EQ(series.columns().size(), 10u);
    for (std::size_t c = 0; c < 10; ++c) {
        const Column& column = series.columns()[c];
        EXPECT_EQ(column.records, 10u);
        EXPECT_EQ(column.heap.min, c * 10);
        EXPECT_EQ(column.heap.max, c * 10 + 9);
        EXPECT_EQ(column.heap.last, c * 10 + 9);
        EXPECT_EQ(column.stack.max, 2 * (c * 10 + 9));
        EXPECT_EQ(column.total.max, 3 * (c * 10 + 9));
        EXPECT_EQ(column.last_time, c * 10 + 10);
        EXPECT_EQ(column.before_last_time, c * 10 + 9);
    }
}

TEST(Envelope, ChunkBoundariesDoNotChangeTheResult) {
    const auto events = ramp(1000);
    auto whole = EnvelopeSeries::by_call(7, 1000);
    whole.add(events);
    auto pieces = EnvelopeSeries::by_call(7, 1000);
    for (std::size_t i = 0; i < events.size(); i += 13)
        pieces.add(std::span(events).subspan(i, std::min<std::size_t>(13, events.size() - i)));
    for (std::size_t c = 0; c < 7; ++c) {
        EXPECT_EQ(whole.columns()[c].heap.min, pieces.columns()[c].heap.min);
        EXPECT_EQ(whole.columns()[c].heap.max, pieces.columns()[c].heap.max);
        EXPECT_EQ(whole.columns()[c].records, pieces.columns()[c].records);
    }
}

TEST(Envelope, ASingleSpikeAmongManyEventsSurvives) {
    std::vector<memusage::Record> events(100000, record(100, 0, 1));
    events[54321] = record(1000000, 0, 1);
    auto series = EnvelopeSeries::by_call(720, events.size());
    series.add(events);
    const std::size_t spike_column = 54321ull * 720 / 100000;
    EXPECT_EQ(series.columns()[spike_column].heap.max, 1000000u);
    EXPECT_EQ(series.columns()[spike_column].heap.min, 100u);
    EXPECT_EQ(series.columns()[spike_column + 1].heap.max, 100u);
    EXPECT_EQ(series.max_heap(), 1000000u);
}

TEST(Envelope, FewerEventsThanColumnsLeaveGaps) {
    auto series = EnvelopeSeries::by_call(100, 4);
    series.add(ramp(4));
    int filled = 0;
    for (const Column& column : series.columns()) filled += !column.empty();
    EXPECT_EQ(filled, 4);
    EXPECT_FALSE(series.columns()[0].empty());
    EXPECT_FALSE(series.columns()[75].empty());
    EXPECT_EQ(series.columns()[75].heap.last, 3u);
}

TEST(Envelope, NoEventsNoColumns) {
    auto series = EnvelopeSeries::by_call(50, 0);
    series.add({});
    for (const Column& column : series.columns()) EXPECT_TRUE(column.empty());
    EXPECT_EQ(series.max_heap(), 0u);
}

TEST(Envelope, ByTimePlacesEventsByTheirTime) {
    std::vector<memusage::Record> events = {record(1, 0, 100), record(2, 0, 150),
                                            record(3, 0, 200)};
    auto series = EnvelopeSeries::by_time(11, 100, 200);
    series.add(events);
    EXPECT_EQ(series.columns()[0].heap.last, 1u);
    EXPECT_EQ(series.columns()[5].heap.last, 2u);
    EXPECT_EQ(series.columns()[10].heap.last, 3u);
    EXPECT_TRUE(series.columns()[3].empty());
}

TEST(Envelope, TimeRunningBackwardsOrOutsideTheSpanIsClampedToTheEdges) {
    std::vector<memusage::Record> events = {record(5, 0, 150), record(7, 0, 10),
                                            record(9, 0, 999999), record(11, 0, 120)};
    auto series = EnvelopeSeries::by_time(11, 100, 200);
    series.add(events);
    EXPECT_EQ(series.columns()[0].heap.max, 7u);
    EXPECT_EQ(series.columns()[10].heap.max, 9u);
    EXPECT_EQ(series.columns()[2].heap.max, 11u);
    EXPECT_EQ(series.columns()[5].heap.max, 5u);
}

TEST(Envelope, TotalSaturates) {
    std::vector<memusage::Record> events = {
        record(memusagestat::kImplausibleHeap - 1, UINT64_MAX, 1)};
    auto series = EnvelopeSeries::by_call(3, 1);
    series.add(events);
    EXPECT_EQ(series.max_total(), UINT64_MAX);
}

// A kill between two pages of one write leaves a record whose heap was written and whose
// stack and time were not; no event has time 0, so it is left out wherever it is.
TEST(Envelope, TimelessRecordsKeepTheirPlaceButAreNotDrawn) {
    std::vector<memusage::Record> events = {record(10, 1, 5), record(900, 0, 0), record(20, 2, 6),
                                            record(30, 3, 7)};
    for (bool time_based : {false, true}) {
        SCOPED_TRACE(time_based ? "by time" : "by call");
        auto series = time_based ? EnvelopeSeries::by_time(4, 5, 7) : EnvelopeSeries::by_call(4, 4);
        series.add(events);
        EXPECT_EQ(series.timeless_records(), 1u);
        EXPECT_EQ(series.max_heap(), 30u);
        uint64_t drawn = 0;
        for (const Column& column : series.columns()) drawn += column.records;
        EXPECT_EQ(drawn, 3u);
        if (!time_based) {
            EXPECT_TRUE(series.columns()[1].empty()) << "the call axis keeps the record's place";
            EXPECT_EQ(series.columns()[2].heap.last, 20u);
        }
    }
}

TEST(Envelope, PartsMergedKeepTheTimeBeforeEachColumnsLast) {
    const auto events = ramp(100);
    auto whole = EnvelopeSeries::by_call(3, 100);
    whole.add(events);
    auto first = EnvelopeSeries::by_call(3, 100);
    first.add(std::span(events).first(50));
    auto second = EnvelopeSeries::by_call(3, 100);
    second.skip_to_event(50);
    second.add(std::span(events).subspan(50, 1));
    auto third = EnvelopeSeries::by_call(3, 100);
    third.skip_to_event(51);
    third.add(std::span(events).subspan(51));
    first.merge_later(second);
    first.merge_later(third);
    for (std::size_t c = 0; c < 3; ++c) {
        EXPECT_EQ(first.columns()[c].last_time, whole.columns()[c].last_time);
        EXPECT_EQ(first.columns()[c].before_last_time, whole.columns()[c].before_last_time);
    }
}

// A heap beyond any address space (a counter that wrapped below zero) stays out of the heap
// and total curves; the record's stack and place on the axis stay.
TEST(Envelope, ImplausibleHeapsAreLeftOutOfTheHeapCurve) {
    std::vector<memusage::Record> events = {record(1000, 8, 1), record(UINT64_MAX - 4095, 16, 2),
                                            record(UINT64_MAX - 8191, 24, 3)};
    auto series = EnvelopeSeries::by_call(3, events.size());
    series.add(events);
    EXPECT_EQ(series.implausible_heap_records(), 2u);
    EXPECT_EQ(series.max_heap(), 1000u);
    EXPECT_EQ(series.max_total(), 1008u);
    EXPECT_EQ(series.max_stack(), 24u);
    EXPECT_FALSE(series.columns()[1].empty());
    EXPECT_TRUE(series.columns()[1].heap.empty());
    EXPECT_TRUE(series.columns()[1].total.empty());
    EXPECT_EQ(series.columns()[2].stack.last, 24u);

    // Split between two parts, the same.
    auto first = EnvelopeSeries::by_call(3, events.size());
    first.add(std::span(events).first(2));
    auto second = EnvelopeSeries::by_call(3, events.size());
    second.skip_to_event(2);
    second.add(std::span(events).subspan(2));
    first.merge_later(second);
    EXPECT_EQ(first.implausible_heap_records(), 2u);
    EXPECT_EQ(first.max_heap(), 1000u);
}
