// SPDX-License-Identifier: MIT
// The described kinds of the event recording (version 4): what each decodes to, what older
// versions and damage make of them, and the replay without the live-block table, leaks
// read back over several chunks included, against the same recording replayed through it.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "events_file_builder.h"
#include "read/block_replay.h"
#include "read/events_reader.h"

namespace memusagestat {
namespace {

using events_test::EventsFileBuilder;
using Kind = RecordedEvent::Kind;
namespace format = memusage::events_format;

constexpr uint64_t kShift = format::kTimeShift;

std::vector<RecordedEvent> read_all(EventsReader& reader) {
    std::vector<RecordedEvent> events;
    RecordedEvent event;
    while (reader.next(event)) events.push_back(event);
    return events;
}

// Three chunks, two threads: blocks freed, resized, freed by the other thread, and leaked
// in each chunk, one leak resized twice across chunks, one address used again after a free.
EventsFileBuilder three_chunks() {
    EventsFileBuilder file;
    file.clock(1000, 5000)
        .thread(1, 700)
        .allocate_described(1001, 0x1000, 100, 3)  // leaked
        .allocate_described(1002, 0x2000, 200, 4)  // freed by thread 2
        .allocate_described(1003, 0x3000, 300, 5)  // resized twice, leaked
        .allocate(1004, 0x4000, 400, 0)            // no site: the table's, leaked
        .allocate_described(1005, 0x5000, 50, 6)   // freed, its address used again
        .release_described(1006, 0x5000, 50, 6, 1, 1005, 1005);
    file.clock(1100, 6000)
        .thread(2, 701)
        .release_described(1101, 0x2000, 200, 4, 1, 1002, 1002)
        .allocate_described(1102, 0x5000, 70, 7)  // leaked by thread 2
        .thread(1, 700)
        .resize_described(1103, 0x3000, 0x3800, 3000, 300, 5, 1, 1003, 1003);
    file.clock(1200, 7000)
        .thread(2, 701)
        .resize_described(1201, 0x3800, 0x3800, 30, 3000, 5, 1, 1103, 1003)
        .allocate_described(1202, 0x6000, 60, 8)
        .release_described(1203, 0x6000, 60, 8, 2, 1202, 1202)
        .trailer(1300, 8000);
    return file;
}

TEST(DescribedKinds, DecodeToTheEventsAndTheBlocksTheyEnd) {
    EventsFileBuilder file = three_chunks();
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    const std::vector<RecordedEvent> events = read_all(reader);
    EXPECT_EQ(reader.problem(), "");
    ASSERT_EQ(events.size(), 12u);
    EXPECT_TRUE(events[0].described);
    EXPECT_EQ(events[0].kind, Kind::allocate);
    EXPECT_EQ(events[0].site, 3u);
    EXPECT_FALSE(events[3].described) << "a plain allocate";
    const RecordedEvent& freed = events[6];  // thread 2 frees thread 1's block
    EXPECT_TRUE(freed.described);
    EXPECT_EQ(freed.kind, Kind::release);
    EXPECT_EQ(freed.thread, 2u);
    EXPECT_EQ(freed.owner, 1u);
    EXPECT_EQ(freed.address, 0x2000u);
    EXPECT_EQ(freed.old_size, 200u);
    EXPECT_EQ(freed.size, 0u);
    EXPECT_EQ(freed.site, 4u);
    EXPECT_EQ(freed.start, 1002u << kShift);
    EXPECT_EQ(freed.born, 1002u << kShift);
    const RecordedEvent& resized = events[9];
    EXPECT_EQ(resized.kind, Kind::resize);
    EXPECT_EQ(resized.old_address, 0x3800u);
    EXPECT_EQ(resized.address, 0x3800u);
    EXPECT_EQ(resized.size, 30u);
    EXPECT_EQ(resized.old_size, 3000u);
    EXPECT_EQ(resized.start, 1103u << kShift);
    EXPECT_EQ(resized.born, 1003u << kShift);
    EXPECT_EQ(reader.described_made(), 8u) << "allocates and resizes that make one";
    EXPECT_EQ(reader.chunks_seen(), 3u);
}

TEST(DescribedKinds, ReadAsThePlainOnesWhenDescriptionsAreLeftOut) {
    EventsFileBuilder file = three_chunks();
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    reader.read_descriptions(false);
    const std::vector<RecordedEvent> events = read_all(reader);
    ASSERT_EQ(events.size(), 12u);
    for (const RecordedEvent& event : events) {
        EXPECT_FALSE(event.described);
        if (event.kind != Kind::allocate) {
            EXPECT_EQ(event.site, 0u);
            EXPECT_EQ(event.old_size, 0u);
        }
    }
}

TEST(DescribedKinds, AreDamageInOlderVersionsWhosePlainKindsStillRead) {
    EventsFileBuilder plain;
    plain.clock(1000, 5000).thread(1, 7).allocate(1001, 0x10, 8, 1).release(1002, 0x10);
    plain.version(3);
    EventsReader old;
    ASSERT_EQ(old.open_bytes(plain.span()).error(), "");
    EXPECT_EQ(read_all(old).size(), 2u);
    EXPECT_EQ(old.problem(), "");

    EventsFileBuilder described;
    described.clock(1000, 5000).thread(1, 7).allocate_described(1001, 0x10, 8, 1);
    described.trailer(1100, 6000).version(3);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(described.span()).error(), "");
    EXPECT_TRUE(read_all(reader).empty());
    EXPECT_NE(reader.problem().find("unknown record kind"), std::string::npos) << reader.problem();
}

TEST(DescribedKinds, TimesBeforeTheRunAndCutRecordsAreDamage) {
    // A block that took its address after the record that ends it (its age wraps past the
    // run's start), and one born before the counter's start.
    for (auto [start, born] : {std::pair<uint64_t, uint64_t>{5000, 5000}, {1001, 2000}}) {
        EventsFileBuilder file;
        file.clock(1000, 5000).thread(1, 7).allocate_described(1001, 0x10, 8, 1);
        file.release_described(1002, 0x10, 8, 1, 1, start, born).trailer(1100, 6000);
        EventsReader reader;
        ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
        EXPECT_EQ(read_all(reader).size(), 1u);
        EXPECT_NE(reader.problem().find("out of range"), std::string::npos) << reader.problem();
    }

    // Every prefix of a complete file reads as a prefix of its events, each as whole.
    EventsFileBuilder whole = three_chunks();
    EventsReader all_reader;
    ASSERT_EQ(all_reader.open_bytes(whole.span()).error(), "");
    const std::vector<RecordedEvent> all = read_all(all_reader);
    for (size_t length = 0; length < whole.bytes().size(); ++length) {
        EventsReader cut;
        if (!cut.open_bytes(whole.span().first(length)).ok()) continue;
        const std::vector<RecordedEvent> some = read_all(cut);
        ASSERT_LE(some.size(), all.size()) << length;
        for (size_t i = 0; i < some.size(); ++i) {
            EXPECT_EQ(some[i].time, all[i].time) << length;
            EXPECT_EQ(some[i].old_size, all[i].old_size) << length;
            EXPECT_EQ(some[i].born, all[i].born) << length;
            EXPECT_EQ(some[i].owner, all[i].owner) << length;
        }
    }
}

struct Lives {
    std::vector<BlockLife> lives;
    uint64_t unknown = 0;
    int64_t heap_before_finish = 0, heap_after_finish = 0;
};

Lives replayed(const EventsFileBuilder& file, bool descriptions) {
    Lives out;
    EventsReader reader;
    EXPECT_EQ(reader.open_bytes(file.span()).error(), "");
    reader.read_descriptions(descriptions);
    BlockReplay replay;
    RecordedEvent event;
    auto keep = [&](const BlockLife& life) { out.lives.push_back(life); };
    while (reader.next(event)) replay.add(event, keep);
    out.heap_before_finish = replay.heap();
    replay.finish(reader, reader.end_time(), keep);
    out.heap_after_finish = replay.heap();
    EXPECT_EQ(replay.blocks_alive(), 0u);
    out.unknown = replay.unknown_blocks();
    return out;
}

auto key(const BlockLife& life) {
    return std::tie(life.address, life.start, life.end, life.size, life.site, life.thread,
                    life.born, life.freed, life.resized_away);
}

TEST(DescribedReplay, GivesTheTablesLivesLeaksReadBackOverEveryChunk) {
    const EventsFileBuilder file = three_chunks();
    Lives described = replayed(file, true);
    Lives table = replayed(file, false);
    EXPECT_EQ(described.unknown, 0u);
    EXPECT_EQ(table.unknown, 0u);
    EXPECT_EQ(described.heap_before_finish, table.heap_before_finish);
    EXPECT_EQ(described.heap_before_finish, 100 + 400 + 70 + 30);
    EXPECT_EQ(described.heap_after_finish, 0) << "every block's bytes ended once";
    auto by_key = [](const BlockLife& a, const BlockLife& b) { return key(a) < key(b); };
    std::vector<BlockLife> a = described.lives, b = table.lives;
    std::sort(a.begin(), a.end(), by_key);
    std::sort(b.begin(), b.end(), by_key);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(key(a[i]), key(b[i])) << i;

    // The leaks: the table's first, then the described ones, latest made first.
    std::vector<BlockLife> leaks;
    for (const BlockLife& life : described.lives)
        if (!life.freed) leaks.push_back(life);
    ASSERT_EQ(leaks.size(), 4u);
    EXPECT_EQ(leaks[0].address, 0x4000u);
    EXPECT_EQ(leaks[1].address, 0x3800u);
    EXPECT_EQ(leaks[1].size, 30u);
    EXPECT_EQ(leaks[1].site, 5u);
    EXPECT_EQ(leaks[1].thread, 1u) << "its owner, not the thread that resized it";
    EXPECT_EQ(leaks[1].born, 1003u << kShift);
    EXPECT_EQ(leaks[1].start, 1201u << kShift);
    EXPECT_EQ(leaks[1].end, 1300u << kShift);
    EXPECT_EQ(leaks[2].address, 0x5000u) << "the later block at a used address";
    EXPECT_EQ(leaks[2].size, 70u);
    EXPECT_EQ(leaks[2].thread, 2u);
    EXPECT_EQ(leaks[3].address, 0x1000u);
    EXPECT_EQ(leaks[3].born, 1001u << kShift);
}

TEST(DescribedReplay, StrayDescribedFreesAreCountedNotTrusted) {
    EventsFileBuilder file;
    file.clock(1000, 5000)
        .thread(1, 7)
        .release_described(1001, 0x10, 8, 1, 1, 1000, 1000)  // never allocated
        .allocate_described(1002, 0x20, 8, 1)
        .allocate_described(1003, 0x20, 16, 1)  // made twice without a free
        .release_described(1004, 0x20, 16, 1, 1, 1003, 1003)
        .trailer(1100, 6000);
    Lives described = replayed(file, true);
    Lives table = replayed(file, false);
    EXPECT_EQ(described.unknown, table.unknown);
    EXPECT_EQ(described.unknown, 2u);
    // The table ends a block made twice at the second; the lost free's block has no
    // description to end it with, and its bytes stay in the heap.
    EXPECT_EQ(table.heap_after_finish, 0);
    EXPECT_EQ(described.heap_after_finish, 8);
}

// A leak in the first chunk, one in the last, and chunks between whose blocks are all freed.
// `middle_address`: the address of the blocks made and freed between.
EventsFileBuilder leaks_far_apart(uint64_t middle_address) {
    EventsFileBuilder file;
    file.clock(1000, 5000).thread(1, 7).allocate_described(1001, 0x1000, 100, 3);
    for (uint64_t chunk = 1; chunk <= 4; ++chunk) {
        const uint64_t at = 1000 + chunk * 1'000'000;
        file.clock(at, 5000 + chunk).thread(1, 7);
        file.allocate_described(at + 1, middle_address, 16, 4)
            .release_described(at + 2, middle_address, 16, 4, 1, at + 1, at + 1);
    }
    file.clock(9'000'000, 9000).thread(1, 7).allocate_described(9'000'001, 0x2000, 200, 5);
    file.trailer(9'000'100, 9100);
    return file;
}

TEST(DescribedReplay, ReadsBackOnlyTheChunksWhoseTimesHoldALiveBlocksCreation) {
    // The chunks between the leaks, changed after the forward pass into ones that would make
    // a block at the first leak's address: read back, the first leak would be taken for it.
    const EventsFileBuilder file = leaks_far_apart(0x1800), other = leaks_far_apart(0x1000);
    ASSERT_EQ(file.bytes().size(), other.bytes().size());
    std::vector<uint8_t> bytes = file.bytes();
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(std::as_bytes(std::span(bytes))).error(), "");
    BlockReplay replay;
    RecordedEvent event;
    std::vector<BlockLife> leaks;
    auto keep = [&](const BlockLife& life) {
        if (!life.freed) leaks.push_back(life);
    };
    while (reader.next(event)) replay.add(event, keep);
    ASSERT_EQ(reader.chunks_seen(), 6u);
    uint64_t first = 0, last = 0;
    ASSERT_TRUE(reader.chunk_times(2, first, last));
    EXPECT_EQ(first, 2'001'000u << kShift);
    EXPECT_EQ(last, 2'001'002u << kShift);
    EXPECT_FALSE(reader.chunk_times(6, first, last));
    std::copy(other.bytes().begin(), other.bytes().end(), bytes.begin());

    replay.finish(reader, reader.end_time(), keep);
    ASSERT_EQ(leaks.size(), 2u);
    EXPECT_EQ(leaks[0].address, 0x2000u);
    EXPECT_EQ(leaks[1].address, 0x1000u);
    EXPECT_EQ(leaks[1].size, 100u) << "the first chunk's block, not one made between";
    EXPECT_EQ(leaks[1].start, 1001u << kShift);
    EXPECT_EQ(replay.heap(), 0);
}

TEST(DescribedReplay, ChunkTimesAreUnknownBeforeAPassReadsThem) {
    const EventsFileBuilder file = leaks_far_apart(0x1800);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    uint64_t first = 0, last = 0;
    EXPECT_FALSE(reader.chunk_times(0, first, last)) << "only its clock read yet";
    RecordedEvent event;
    for (int i = 0; i < 2 && reader.next(event); ++i) {
    }
    EXPECT_TRUE(reader.chunk_times(0, first, last)) << "the next chunk's clock ends it";
    EXPECT_EQ(first, 1000u << kShift);
    EXPECT_EQ(last, 1001u << kShift);
    EXPECT_FALSE(reader.chunk_times(1, first, last)) << "begun, not read to its end";
    while (reader.next(event)) {
    }
    EXPECT_TRUE(reader.chunk_times(5, first, last));
    EXPECT_EQ(last, 9'000'001u << kShift);
}

}  // namespace
}  // namespace memusagestat
