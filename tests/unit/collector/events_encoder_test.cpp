// SPDX-License-Identifier: MIT
#include "record/events_encoder.h"

#include <gtest/gtest.h>

#include <vector>

#include "platform/clock.h"
#include "read/events_reader.h"
#include "record/events_file.h"
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

// Two threads in their own arenas, interleaved: each address is a delta from the same
// thread's previous one, and a thread's tid is written once a chunk.
TEST(EventsEncoder, AddressesAreDeltasPerThreadAndATidIsWrittenOnceAChunk) {
    uint8_t buffer[512];
    EventsEncoder encoder;
    uint8_t* out = encoder.start_chunk(buffer, 1000, 5);
    out = encoder.event(out, 1, 42, 1000, BlockChange{0x1000, 0, 8}, 0);
    out = encoder.event(out, 2, 43, 1000, BlockChange{0x7000'0000, 0, 8}, 0);
    uint8_t* at = out;
    out = encoder.event(out, 1, 42, 1001, BlockChange{0x1010, 0, 8}, 0);
    // Thread again 1 (no tid), allocate +1, address +0x10 from thread 1's 0x1000.
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{7, 1, 4, 1, 0x20, 8, 0}));
    at = out;
    out = encoder.event(out, 2, 43, 1001, BlockChange{0, 0x7000'0000, 0}, 0);
    // Thread again 2, release at +0 from thread 2's last address.
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{7, 2, 5, 0, 0}));
    at = out;
    out = encoder.event(out, 2, 43, 1001, BlockChange{0x7000'0040, 0x7000'0000, 16}, 0);
    // Resize: old +0 from thread 2's base, new +0x40 from the old; the base is the new one.
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{6, 0, 0, 0x80, 0x01, 16}));
    at = out;
    out = encoder.event(out, 2, 43, 1001, BlockChange{0, 0x7000'0040, 0}, 0);
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{5, 0, 0}));

    // A new chunk owes nothing to the one before: each thread is named again, with its tid,
    // and its base starts at 0.
    out = encoder.start_chunk(buffer, 2000, 6);
    at = out;
    out = encoder.event(out, 2, 43, 2000, BlockChange{0x10, 0, 8}, 0);
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{2, 2, 43, 4, 0, 0x20, 8, 0}));
    at = out;
    out = encoder.event(out, 1, 42, 2000, BlockChange{0x20, 0, 8}, 0);
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{2, 1, 42, 4, 0, 0x40, 8, 0}));
}

// The bases are kept in a table of fixed size: a thread whose entry another took is named
// again (its tid written, its base from 0), never sent back to a base that is not its own.
TEST(EventsEncoder, AThreadWhoseBaseWasTakenIsNamedAgain) {
    uint8_t buffer[4096];  // two records for each of the table's entries
    EventsEncoder encoder;
    uint8_t* out = encoder.start_chunk(buffer, 0, 0);
    out = encoder.event(out, 1, 41, 0, BlockChange{0x1000, 0, 8}, 0);
    uint8_t* at = out;
    uint64_t other = 0;  // the first serial after 1 that shares its entry
    for (uint64_t serial = 2; other == 0; ++serial) {
        at = out;
        out = encoder.event(out, serial, 100 + serial, 0, BlockChange{0x20, 0, 8}, 0);
        if (*at != static_cast<uint8_t>(Kind::thread)) break;  // (never: each is new)
        at = out;
        out = encoder.event(out, 1, 41, 0, BlockChange{0x1000, 0, 8}, 0);
        if (*at == static_cast<uint8_t>(Kind::thread)) other = serial;
    }
    ASSERT_GT(other, 2u) << "a table of more than one entry";
    // Thread 1 named again after `other` took its entry: tid and an address from 0.
    EXPECT_EQ(bytes(at, out), (std::vector<uint8_t>{2, 1, 41, 4, 0, 0x80, 0x40, 8, 0}));
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
    ASSERT_EQ(events.open(file.path(), events_format::kHasSites), OpenResult::opened);
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
    ASSERT_EQ(reader.open(file.path()).error(), "");
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

// Many threads taking turns (more than the encoder's table of bases holds), across chunks:
// what the reader decodes is what went in, thread by thread.
TEST(EventsFile, ManyThreadsTakingTurnsDecodeToTheEventsAdded) {
    ScratchFile file;
    EventsFile events;
    ASSERT_EQ(events.open(file.path(), 0), OpenResult::opened);
    constexpr uint64_t kThreads = 150, kCount = 100000;
    const uint64_t start = cycle_counter() + (uint64_t{1} << 20);
    auto serial_of = [](uint64_t i) { return 1 + (i * 7 + i / 1000) % kThreads; };
    auto address_of = [&](uint64_t i) {  // each thread in an arena of its own
        return 0x7f00'0000'0000 + serial_of(i) * 0x1000'0000 + (i % 32) * 48;
    };
    for (uint64_t i = 0; i < kCount; ++i)
        events.add(serial_of(i), 5000 + serial_of(i), start + i * 16, 0,
                   BlockChange{address_of(i), 0, 8});
    events.finish();

    memusagestat::EventsReader reader;
    ASSERT_EQ(reader.open(file.path()).error(), "");
    uint64_t i = 0;
    for (memusagestat::RecordedEvent event; reader.next(event); ++i) {
        ASSERT_EQ(event.address, address_of(i)) << i;
        ASSERT_EQ(event.thread, serial_of(i)) << i;
    }
    EXPECT_EQ(reader.problem(), "");
    EXPECT_EQ(i, kCount);
    ASSERT_EQ(reader.threads().size(), kThreads);
    for (const memusagestat::ThreadInfo& thread : reader.threads())
        EXPECT_EQ(thread.tid, 5000u + thread.serial);
}

}  // namespace
}  // namespace memusage
