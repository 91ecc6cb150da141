// SPDX-License-Identifier: MIT
#include "html/page_events.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "page_files.h"

namespace memusagestat {
namespace {

using report_test::churn_recording;

ReportEvents events_of(const events_test::EventsFileBuilder& recording, ReportEventsInput input) {
    EventsReader reader;
    EXPECT_EQ(reader.open_bytes(recording.span()).error(), "");
    input.clock.origin = reader.start_time();
    input.clock.end = reader.end_time();
    input.clock.seconds_per_cycle = reader.seconds_per_cycle();
    if (input.expected_events == 0) input.expected_events = reader.trailer_event_count();
    return report_events(reader, input);
}

int64_t max_of(const nlohmann::json& column) {
    int64_t most = 0;
    for (const auto& value : column) most = std::max(most, value.get<int64_t>());
    return most;
}

TEST(ReportEvents, BelowTheBoundsEveryEventAndBlockIsThere) {
    ReportEvents out = events_of(churn_recording(2000), {});
    EXPECT_EQ(out.events["total"], 2000);
    EXPECT_FALSE(out.events["thinned"]);
    EXPECT_EQ(out.events["time"].size(), 2000u);
    EXPECT_FALSE(out.blocks["thinned"]);
    EXPECT_EQ(out.blocks["total"], 1000 + 143);  // and every 7th call's block, kept
    EXPECT_EQ(out.blocks["size"].size(), 1143u);
    EXPECT_TRUE(out.notes.empty());
    ASSERT_EQ(out.threads.size(), 1u);
    EXPECT_EQ(out.threads[0]["serial"], 1);
    EXPECT_EQ(out.threads[0]["tid"], 4242);
    EXPECT_EQ(out.threads[0]["name"], "churn");
    // The thread's figures are the whole recording's: every allocation, every free, and its
    // peak is the heap's (one thread holds it all).
    EXPECT_EQ(
        out.threads[0]["allocations"].get<uint64_t>() + out.threads[0]["frees"].get<uint64_t>(),
        2000u);
    EXPECT_EQ(out.threads[0]["frees"], 1000 - 143);
    EXPECT_EQ(out.threads[0]["peak"], max_of(out.events["heap"]));
    // A free's size is the freed block's, and the heap after it is lower by as much.
    const nlohmann::json& e = out.events;
    EXPECT_EQ(e["kind"][3], 1);
    EXPECT_EQ(e["size"][3], e["size"][2]);
    EXPECT_EQ(e["heap"][3], e["heap"][1]);
    // One event a microsecond (the clock: a cycle a nanosecond).
    EXPECT_NEAR(e["time"][1].get<double>() - e["time"][0].get<double>(), 1e-6, 1e-7);
}

TEST(ReportEvents, ABigRecordingIsThinnedWithinTheBoundsKeepingThePeak) {
    ReportEventsInput input;
    input.bounds = {1000, 500};
    ReportEvents full = events_of(churn_recording(100000), {});
    ReportEvents out = events_of(churn_recording(100000), input);
    EXPECT_EQ(out.events["total"], 100000);
    EXPECT_TRUE(out.events["thinned"]);
    EXPECT_LE(out.events["time"].size(), 1000u);
    for (const char* column : {"kind", "address", "size", "thread", "site", "heap"})
        EXPECT_EQ(out.events[column].size(), out.events["time"].size()) << column;
    EXPECT_EQ(max_of(out.events["heap"]), max_of(full.events["heap"]));
    EXPECT_TRUE(std::is_sorted(out.events["time"].begin(), out.events["time"].end()));
    EXPECT_TRUE(out.blocks["thinned"]);
    EXPECT_EQ(out.blocks["total"], 50000 + 7143);
    EXPECT_LE(out.blocks["size"].size(), 500u);
    // The block map keeps what covers most of it: here the blocks never freed, which live
    // to the end, beside thousands that live a microsecond.
    for (const auto& died : out.blocks["died"]) EXPECT_EQ(died, -1);
    ASSERT_EQ(out.notes.size(), 2u);
    EXPECT_NE(out.notes[0].find("--html-window"), std::string::npos);
}

TEST(ReportEvents, AWindowHoldsItsEventsAndTheBlocksAliveInIt) {
    ReportEventsInput input;
    input.window = TimeWindow{0.01, 0.02};
    ReportEvents out = events_of(churn_recording(100000), input);
    const nlohmann::json& times = out.events["time"];
    ASSERT_FALSE(times.empty());
    EXPECT_FALSE(out.events["thinned"]);
    EXPECT_EQ(out.events["total"], times.size());
    EXPECT_NEAR(static_cast<double>(times.size()), 10000, 200);  // an event every 1.008 µs
    for (const auto& t : times) {
        EXPECT_GE(t.get<double>(), 0.01);
        EXPECT_LE(t.get<double>(), 0.02);
    }
    for (size_t i = 0; i < out.blocks["born"].size(); ++i) {
        EXPECT_LE(out.blocks["born"][i].get<double>(), 0.02);
        const double died = out.blocks["died"][i].get<double>();
        EXPECT_TRUE(died < 0 || died >= 0.01);
    }
}

TEST(ReportEvents, TemporaryBlocksAreThoseFreedBeforeTheirThreadsNextHeapCall) {
    events_test::EventsFileBuilder recording;
    recording.clock(100, 1600).thread(1, 10).thread(2, 11);
    recording.switch_to(1, 10).allocate(110, 0x1000, 8, 2).release(111, 0x1000);  // temporary
    recording.allocate(112, 0x2000, 8, 2).allocate(113, 0x3000, 8, 3);
    recording.release(114, 0x2000);  // not: its thread allocated since
    recording.switch_to(2, 11).allocate(115, 0x4000, 8, 3);
    // Not either: thread 1 freed another block (0x2000) between its allocation and its free.
    recording.switch_to(1, 10).release(116, 0x3000);
    recording.trailer(120, 1920);
    std::vector<uint64_t> temporary(2);
    ReportEventsInput input;
    input.site_of = [](uint32_t id) { return static_cast<int32_t>(id) - 2; };
    input.temporary = &temporary;
    ReportEvents out = events_of(recording, input);
    EXPECT_EQ(temporary, (std::vector<uint64_t>{1, 0}));
    EXPECT_EQ(out.events["site"], nlohmann::json::parse("[0,0,0,1,0,1,1]"));
}

TEST(ReportEvents, ABlockSaysWhenItWasFirstAllocatedWhetherResizedAwayAndWhetherTheRuntimesKeepIt) {
    // 16 ns a cycle, from cycle 100: cycle c is (c - 100) * 16 ns into the run.
    events_test::EventsFileBuilder recording;
    recording.clock(100, 1600).thread(1, 10);
    recording.allocate(200, 0x1000, 32, 2);     // 1.6 µs
    recording.allocate(300, 0x2000, 8, 3);      // the runtime's, never freed
    recording.resize(600, 0x1000, 0x5000, 64);  // 8 µs: its life goes on at 0x5000
    recording.release(900, 0x5000);             // 12.8 µs
    recording.trailer(1100, 17600);             // 16 µs
    ReportEventsInput input;
    input.site_of = [](uint32_t id) { return static_cast<int32_t>(id) - 2; };
    input.kept_by_runtime = [](uint32_t id) { return id == 3; };
    ReportEvents out = events_of(recording, input);
    const nlohmann::json& b = out.blocks;
    ASSERT_EQ(b["born"].size(), 3u);  // by `born`: 0x1000, 0x2000, then 0x5000
    EXPECT_EQ(b["address"], nlohmann::json::parse("[4096, 8192, 20480]"));
    EXPECT_EQ(b["resized"], nlohmann::json::parse("[1, 0, 0]"));
    EXPECT_EQ(b["kept"], nlohmann::json::parse("[0, 1, 0]"));
    EXPECT_NEAR(b["died"][0].get<double>(), 8e-6, 1e-9);
    EXPECT_EQ(b["died"][1], -1);
    EXPECT_NEAR(b["born"][2].get<double>(), 8e-6, 1e-9);
    EXPECT_NEAR(b["died"][2].get<double>(), 12.8e-6, 1e-9);
    // The resized block's life, 1.6 µs to 12.8 µs, counts from its first allocation.
    EXPECT_EQ(b["lived_before"][0], 0);
    EXPECT_EQ(b["lived_before"][1], 0);
    EXPECT_NEAR(b["lived_before"][2].get<double>(), 6.4e-6, 1e-9);
    EXPECT_NEAR(b["end"].get<double>(), 16e-6, 1e-9);
}

}  // namespace
}  // namespace memusagestat
