#include "events_encoder.h"

#include <gtest/gtest.h>

#include <vector>

#include "clock.h"
#include "events_file.h"
#include "events_reader.h"
#include "test_files.h"

namespace memusage {
namespace {

using events_format::Kind;

std::vector<uint8_t> bytes(const uint8_t* begin, const uint8_t* end) { return {begin, end}; }

TEST(EventsEncoder, WritesDeltasFromTheChunksClockAndTheThreadOncePerChange) {
    uint8_t buffer[512];
    EventsEncoder encoder;
    uint8_t* out = encoder.start_chunk(buffer, 1000, 5);
    EXPECT_EQ(bytes(buffer, out), (std::vector<uint8_t>{1, 0xe8, 0x07, 5}));
    uint8_t* at = out;
    out = encoder.event(out, 1, 42, 1003, BlockChange{0x1000, 0, 100}, 7);
    // Thread 1 (tid 42), then allocate: +3, address +0x1000 zigzagged, 100 bytes, site 7.
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{2, 1, 42, 4, 3, 0x80, 0x40, 100, 7}));
    at = out;
    out = encoder.event(out, 1, 42, 1003, BlockChange{0x1000, 0x1000, 300}, 0);
    // Same thread: no Thread record. Resize in place: +0, old +0, new +0, 300 bytes.
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{6, 0, 0, 0, 0xac, 0x02}));
    at = out;
    // An earlier time (another core's counter) is taken as the previous one.
    out = encoder.event(out, 1, 42, 999, BlockChange{0, 0xff0, 0}, 0);
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{5, 0, 0x1f}));  // address -16
    at = out;
    out = encoder.thread_name(out, 1, "main");
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{3, 1, 4, 'm', 'a', 'i', 'n'}));
}

TEST(EventsEncoder, BlocklessEventsAreNotBlockEvents) {
    EXPECT_FALSE(EventsEncoder::is_block_event(BlockChange{}));
    EXPECT_TRUE(EventsEncoder::is_block_event(BlockChange{0, 8, 0}));
}

// The file: a header, chunks of at most kChunkBytes each starting with a Clock, the
// trailer counting the events; what memusagestat's reader reads back is what went in.
TEST(EventsFile, ChunksAndTrailerDecodeToTheEventsAdded) {
    ScratchFile file;
    EventsFile events;
    ASSERT_EQ(events.open(file.path(), events_format::kHasSites), EventsFile::OpenResult::opened);
    constexpr uint64_t kCount = 200000;
    // Times after the file's opening, as the recorder's are.
    const uint64_t start = cycle_counter() + (uint64_t{1} << 20);
    uint64_t time = start;
    for (uint64_t i = 0; i < kCount; ++i) {
        time += 160;
        uint64_t address = 0x100000 + (i % 64) * 64;
        if (i % 2 == 0)
            events.add(1 + i % 3, 100 + i % 3, time, 5, BlockChange{address, 0, i % 500});
        else
            events.add(1 + i % 3, 100 + i % 3, time, 0, BlockChange{0, address, 0});
    }
    events.add(1, 100, time, 0, BlockChange{});  // a tick: left out
    events.add_thread_name(2, "worker");
    events.finish();
    events.finish();  // nothing more

    memusagestat::EventsReader reader;
    ASSERT_EQ(reader.open(file.path()), "");
    std::vector<memusagestat::RecordedEvent> read;
    for (memusagestat::RecordedEvent event; reader.next(event);) read.push_back(event);
    EXPECT_EQ(reader.problem(), "");
    EXPECT_TRUE(reader.has_sites());
    ASSERT_TRUE(reader.complete());
    EXPECT_EQ(reader.trailer_event_count(), kCount);
    EXPECT_EQ(reader.dropped(), 0u);
    ASSERT_EQ(read.size(), kCount);
    ASSERT_EQ(reader.threads().size(), 3u);
    EXPECT_EQ(reader.threads()[1].name, "worker");
    EXPECT_EQ(reader.threads()[2].tid, 102u);
    using Kind = memusagestat::RecordedEvent::Kind;
    constexpr uint64_t kMask = ~((uint64_t{1} << events_format::kTimeShift) - 1);
    for (uint64_t i = 0; i < kCount; ++i) {
        const memusagestat::RecordedEvent& event = read[i];
        ASSERT_EQ(event.kind, i % 2 == 0 ? Kind::allocate : Kind::release) << i;
        ASSERT_EQ(event.address, 0x100000 + (i % 64) * 64) << i;
        ASSERT_EQ(event.thread, 1 + i % 3) << i;
        ASSERT_EQ(event.time, (start + 160 * (i + 1)) & kMask) << i;
        if (i % 2 == 1) continue;
        ASSERT_EQ(event.size, i % 500) << i;
        ASSERT_EQ(event.site, 5u) << i;
    }
}

}  // namespace
}  // namespace memusage
