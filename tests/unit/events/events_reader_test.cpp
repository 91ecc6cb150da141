// SPDX-License-Identifier: MIT
// The event recording's reader: what each record decodes to, the clocks, complete and killed
// runs, damage anywhere, and that no prefix of a file is misread.
#include "read/events_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "events_file_builder.h"

namespace memusagestat {
namespace {

using events_test::EventsFileBuilder;
using Kind = RecordedEvent::Kind;
namespace format = memusage::events_format;

std::vector<RecordedEvent> read_all(EventsReader& reader) {
    std::vector<RecordedEvent> events;
    RecordedEvent event;
    while (reader.next(event)) events.push_back(event);
    return events;
}

EventsFileBuilder two_threads() {
    EventsFileBuilder file;
    file.clock(1000, 5000)
        .thread(1, 777)
        .allocate(1001, 0x5555'0000'1000, 100, 3)
        .allocate(1003, 0x5555'0000'1080, 40, 4)
        .resize(1010, 0x5555'0000'1000, 0x5555'0000'2000, 4000)
        .thread(2, 778)
        .release(1012, 0x5555'0000'1080)
        .thread_again(1)
        .resize(1013, 0x5555'0000'2000, 0x5555'0000'2000, 10);
    return file;
}

TEST(EventsReader, DecodesEveryKindOfRecord) {
    EventsFileBuilder file = two_threads();
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> events = read_all(reader);
    EXPECT_EQ(reader.problem(), "");
    ASSERT_EQ(events.size(), 5u);

    EXPECT_EQ(events[0].kind, Kind::allocate);
    EXPECT_EQ(events[0].time, 1001u << format::kTimeShift);
    EXPECT_EQ(events[0].address, 0x5555'0000'1000u);
    EXPECT_EQ(events[0].size, 100u);
    EXPECT_EQ(events[0].site, 3u);
    EXPECT_EQ(events[0].thread, 1u);

    EXPECT_EQ(events[1].address, 0x5555'0000'1080u);
    EXPECT_EQ(events[1].site, 4u);

    EXPECT_EQ(events[2].kind, Kind::resize);
    EXPECT_EQ(events[2].old_address, 0x5555'0000'1000u);
    EXPECT_EQ(events[2].address, 0x5555'0000'2000u);
    EXPECT_EQ(events[2].size, 4000u);

    EXPECT_EQ(events[3].kind, Kind::release);
    EXPECT_EQ(events[3].address, 0x5555'0000'1080u);
    EXPECT_EQ(events[3].thread, 2u);
    EXPECT_EQ(events[3].time, 1012u << format::kTimeShift);

    EXPECT_EQ(events[4].kind, Kind::resize);
    EXPECT_EQ(events[4].old_address, 0x5555'0000'2000u);
    EXPECT_EQ(events[4].old_address, events[4].address);
    EXPECT_EQ(events[4].thread, 1u);

    ASSERT_EQ(reader.threads().size(), 2u);
    EXPECT_EQ(reader.threads()[0].tid, 777u);
    EXPECT_EQ(reader.threads()[1].tid, 778u);
    EXPECT_TRUE(reader.has_sites());
    EXPECT_EQ(reader.pid(), 4242u);
    EXPECT_FALSE(reader.complete());
    EXPECT_EQ(reader.start_time(), 1000u << format::kTimeShift);
    EXPECT_EQ(reader.end_time(), 1013u << format::kTimeShift);
}

TEST(EventsReader, ATrailerMakesTheRecordingCompleteAndGivesTheClockRate) {
    EventsFileBuilder file = two_threads();
    // 62,500,000 shifted units are 10^9 cycles; 0.5 s passed: 2 GHz.
    file.trailer(1000 + 62'500'000, 5000 + 500'000'000, 7);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_TRUE(reader.complete());
    EXPECT_EQ(reader.dropped(), 7u);
    EXPECT_EQ(reader.trailer_event_count(), 5u);
    EXPECT_DOUBLE_EQ(reader.seconds_per_cycle(), 0.5e-9);
    EXPECT_EQ(reader.end_time(), (1000u + 62'500'000u) << format::kTimeShift);
    EXPECT_EQ(read_all(reader).size(), 5u);
    EXPECT_EQ(reader.problem(), "");
}

TEST(EventsReader, AKilledRunsRateComesFromItsLastChunksClock) {
    EventsFileBuilder file = two_threads();
    file.clock(1000 + 62'500'000, 5000 + 250'000'000)
        .thread(1, 777)
        .release(1000 + 62'500'001, 0x5555'0000'2000);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(reader.seconds_per_cycle(), 0.0) << "known only once the chunks were read";
    EXPECT_EQ(read_all(reader).size(), 6u);
    EXPECT_DOUBLE_EQ(reader.seconds_per_cycle(), 0.25e-9);
}

TEST(EventsReader, EachChunkStartsItsAddressesAndThreadAfresh) {
    EventsFileBuilder file;
    file.clock(10, 0).thread(3, 1).allocate(11, 0x7000'0000, 8, 0);
    file.clock(20, 100).allocate(21, 0x7000'0100, 8, 0);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> events = read_all(reader);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].address, 0x7000'0100u);
    EXPECT_EQ(events[1].thread, 0u) << "the second chunk named no thread";
    EXPECT_EQ(events[1].time, 21u << format::kTimeShift);
}

// Each thread's addresses are deltas from its own previous one in the chunk: what the
// writer gains when the merged order switches between two threads' arenas.
TEST(EventsReader, AddressesAreDeltasFromTheSameThreadsPreviousAddress) {
    EventsFileBuilder file;
    file.clock(10, 0)
        .thread(1, 501)
        .allocate(11, 0x5555'0000'1000, 8, 0)
        .thread(2, 502)
        .allocate(12, 0x7f00'0000'1000, 8, 0)
        .thread_again(1);
    size_t before = file.bytes().size();
    file.allocate(13, 0x5555'0000'1020, 8, 0);
    // Kind, time +1, address +0x20 from thread 1's 0x5555'0000'1000 in one byte, size, site.
    EXPECT_EQ(file.bytes().size() - before, 5u);
    file.thread_again(2)
        .release(14, 0x7f00'0000'1000)
        .thread_again(1)
        .release(15, 0x5555'0000'1000);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> events = read_all(reader);
    EXPECT_EQ(reader.problem(), "");
    ASSERT_EQ(events.size(), 5u);
    const uint64_t addresses[] = {0x5555'0000'1000, 0x7f00'0000'1000, 0x5555'0000'1020,
                                  0x7f00'0000'1000, 0x5555'0000'1000};
    const uint32_t threads[] = {1, 2, 1, 2, 1};
    for (size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(events[i].address, addresses[i]) << i;
        EXPECT_EQ(events[i].thread, threads[i]) << i;
    }
    ASSERT_EQ(reader.threads().size(), 2u);
    EXPECT_EQ(reader.threads()[0].tid, 501u) << "named once, kept through Thread again";
    EXPECT_EQ(reader.threads()[1].tid, 502u);
}

// A thread named again in its chunk starts its base afresh.
TEST(EventsReader, AThreadNamedAgainInItsChunkStartsItsBaseAtZero) {
    EventsFileBuilder file;
    file.clock(10, 0).thread(1, 501).allocate(11, 0x5555'0000'1000, 8, 0);
    file.thread(2, 502).allocate(12, 0x10, 8, 0).thread(1, 501).allocate(13, 0x20, 8, 0);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> events = read_all(reader);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[2].address, 0x20u);
    EXPECT_EQ(events[2].thread, 1u);

    // The same while it is the current thread.
    EventsFileBuilder current;
    current.clock(10, 0).thread(1, 501).allocate(11, 0x5555'0000'1000, 8, 0);
    current.thread(1, 501).allocate(12, 0x30, 8, 0);
    EventsReader again;
    ASSERT_EQ(again.open_bytes(current.span()).error(), "");
    events = read_all(again);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].address, 0x30u);
}

// Every chunk names its threads: Thread again for a thread only an earlier chunk named (the
// writer never does that: a new chunk names each thread afresh) is damage, found there.
TEST(EventsReader, AThreadComingBackThatItsChunkDidNotNameIsDamage) {
    EventsFileBuilder file;
    file.clock(10, 0).thread(1, 501).allocate(11, 0x1000, 8, 0);
    file.clock(20, 100).thread(2, 502).allocate(21, 0x2000, 8, 0);
    size_t damage = file.bytes().size();
    file.thread_again(1).allocate(22, 0x1040, 8, 0).trailer(30, 200);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(read_all(reader).size(), 2u);
    EXPECT_NE(reader.problem().find("did not name"), std::string::npos) << reader.problem();
    EXPECT_NE(reader.problem().find("at byte " + std::to_string(damage)), std::string::npos)
        << reader.problem();

    EventsFileBuilder never_named;
    never_named.clock(10, 0).thread_again(3).allocate(11, 0x1000, 8, 0).trailer(30, 200);
    EventsReader other;
    ASSERT_EQ(other.open_bytes(never_named.span()).error(), "");
    EXPECT_EQ(read_all(other).size(), 0u);
    EXPECT_NE(other.problem().find("did not name"), std::string::npos);
}

// What a pass left in its threads' bases does not carry into the next pass.
TEST(EventsReader, RewindStartsEveryThreadsBaseAfresh) {
    EventsFileBuilder file;
    file.clock(10, 0).thread(1, 501).allocate(11, 0x1000, 8, 0).thread(2, 502);
    file.allocate(12, 0x9000, 8, 0).thread_again(1).release(13, 0x1000);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> first = read_all(reader);
    reader.rewind();
    std::vector<RecordedEvent> second = read_all(reader);
    ASSERT_EQ(first.size(), 3u);
    ASSERT_EQ(second.size(), 3u);
    for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].address, second[i].address);
    EXPECT_EQ(reader.problem(), "");
}

TEST(EventsReader, ThreadNamesAreKept) {
    EventsFileBuilder file;
    file.clock(1, 0).thread(2, 99).thread_name(2, "worker").thread_name(1, "main");
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    read_all(reader);
    ASSERT_EQ(reader.threads().size(), 2u);
    EXPECT_EQ(reader.threads()[0].serial, 1u);
    EXPECT_EQ(reader.threads()[0].name, "main");
    EXPECT_EQ(reader.threads()[1].name, "worker");
    EXPECT_EQ(reader.threads()[1].tid, 99u);
}

TEST(EventsReader, RewindReadsTheSameEventsAgain) {
    EventsFileBuilder file = two_threads();
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> first = read_all(reader);
    reader.rewind();
    std::vector<RecordedEvent> second = read_all(reader);
    ASSERT_EQ(first.size(), second.size());
    for (size_t i = 0; i < first.size(); ++i) {
        EXPECT_EQ(first[i].time, second[i].time);
        EXPECT_EQ(first[i].address, second[i].address);
    }
}

TEST(EventsReader, RefusesWhatIsNotARecording) {
    EventsReader reader;
    EXPECT_FALSE(reader.open_bytes({}).ok());
    std::vector<uint8_t> text(64, 'x');
    EventsReader other;
    EXPECT_NE(other.open_bytes(std::as_bytes(std::span(text))).error().find("not an events file"),
              std::string::npos);

    EventsFileBuilder file;
    file.clock(1, 1);
    file.bytes()[8] = 9;  // version
    EventsReader versioned;
    EXPECT_NE(versioned.open_bytes(file.span()).error().find("version 9"), std::string::npos);

    // Version 1 (one address chain for all threads) is refused, by its number.
    file.bytes()[8] = 1;
    EventsReader first_version;
    std::string refused = first_version.open_bytes(file.span()).error();
    EXPECT_NE(refused.find("version 1 is not supported"), std::string::npos) << refused;
    EXPECT_NE(refused.find("reads versions 2 to " + std::to_string(format::kVersion)),
              std::string::npos)
        << refused;
}

// Version 2 headers (32 bytes, no machine stamp) still read, as of the reader's own kind of
// machine; a recording of the other byte order is refused with that reason.
TEST(EventsReader, OlderHeadersReadAndOtherByteOrdersAreRefused) {
    EventsFileBuilder file = two_threads();
    std::vector<uint8_t> v2 = file.bytes();
    format::FileHeader header;
    std::memcpy(&header, v2.data(), sizeof header);
    header.version = 2;
    header.header_bytes = format::kVersion2HeaderBytes;
    v2.erase(v2.begin() + format::kVersion2HeaderBytes, v2.begin() + sizeof header);
    std::memcpy(v2.data(), &header, format::kVersion2HeaderBytes);
    EventsReader old;
    ASSERT_EQ(old.open_bytes(std::as_bytes(std::span(v2))).error(), "");
    EXPECT_EQ(read_all(old).size(), 5u);
    EXPECT_EQ(old.machine().byte_order, 0u);

    std::vector<uint8_t> swapped = file.bytes();
    uint32_t version = __builtin_bswap32(format::kVersion);
    std::memcpy(swapped.data() + 8, &version, sizeof version);
    EventsReader other;
    EXPECT_NE(other.open_bytes(std::as_bytes(std::span(swapped))).error().find("other byte order"),
              std::string::npos);
}

TEST(EventsReader, RefusesARecordingThatDoesNotStartWithAClock) {
    EventsFileBuilder file;
    file.thread(1, 1);
    EventsReader reader;
    EXPECT_NE(reader.open_bytes(file.span()).error().find("clock"), std::string::npos);
}

TEST(EventsReader, DamageInTheMiddleStopsWithWhereAndWhy) {
    EventsFileBuilder file;
    file.clock(1, 1).allocate(2, 0x1000, 16, 0).raw({0x7f}).allocate(3, 0x2000, 16, 0);
    file.trailer(4, 2);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(read_all(reader).size(), 1u);
    EXPECT_NE(reader.problem().find("unknown record kind"), std::string::npos);
    EXPECT_NE(reader.problem().find("at byte"), std::string::npos);
}

TEST(EventsReader, ZerosInsideACompleteRecordingAreDamage) {
    EventsFileBuilder file;
    file.clock(1, 1).allocate(2, 0x1000, 16, 0).raw({0, 0, 0}).trailer(4, 2);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(read_all(reader).size(), 1u);
    EXPECT_NE(reader.problem(), "");
}

TEST(EventsReader, AKilledRunsCutRecordEndsTheRecordingQuietly) {
    EventsFileBuilder file;
    file.clock(1, 1).allocate(2, 0x1000, 16, 0).allocate(3, 0x2000, 300, 0);
    file.bytes().pop_back();  // the site's varint
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(read_all(reader).size(), 1u);
    EXPECT_EQ(reader.problem(), "");
}

TEST(EventsReader, AKilledRunsTornChunkEndsTheRecordingQuietly) {
    EventsFileBuilder file;
    file.clock(1, 1).allocate(2, 0x1000, 16, 0);
    size_t torn = file.bytes().size();
    file.clock(5, 5).thread(1, 1);
    for (int i = 0; i < 1000; ++i) file.allocate(6 + i, 0x2000 + 16 * i, 300, 0);
    file.bytes()[torn] = 0;  // its kind byte is written last
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(read_all(reader).size(), 1u);
    EXPECT_EQ(reader.problem(), "");
}

TEST(EventsReader, RefusesAVarintLongerThanSixtyFourBits) {
    EventsFileBuilder file;
    file.clock(1, 1).raw({static_cast<uint8_t>(format::Kind::allocate), 1, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 0});
    file.allocate(5, 0, 1, 0).allocate(6, 0, 1, 0).allocate(7, 0, 1, 0).trailer(9, 9);
    EventsReader reader;
    ASSERT_EQ(reader.open_bytes(file.span()).error(), "");
    EXPECT_EQ(read_all(reader).size(), 0u);
    EXPECT_NE(reader.problem(), "");
}

TEST(EventsReader, EveryPrefixReadsAsAPrefixOfTheEvents) {
    EventsFileBuilder file = two_threads();
    // A second chunk naming the threads afresh, one coming back.
    file.clock(1100, 6000)
        .thread(2, 778)
        .allocate(1101, 0x7f00'0000'1000, 30, 5)
        .thread(1, 777)
        .release(1102, 0x5555'0000'2000)
        .thread_again(2)
        .release(1103, 0x7f00'0000'1000);
    const size_t records_end = file.bytes().size();
    file.trailer(2000, 9000);
    EventsReader whole;
    ASSERT_EQ(whole.open_bytes(file.span()).error(), "");
    std::vector<RecordedEvent> all = read_all(whole);
    for (size_t length = 0; length < file.bytes().size(); ++length) {
        EventsReader reader;
        if (!reader.open_bytes(file.span().first(length)).ok()) continue;
        std::vector<RecordedEvent> events = read_all(reader);
        ASSERT_LE(events.size(), all.size()) << length;
        for (size_t i = 0; i < events.size(); ++i) {
            EXPECT_EQ(events[i].time, all[i].time) << length;
            EXPECT_EQ(events[i].address, all[i].address) << length;
            EXPECT_EQ(events[i].size, all[i].size) << length;
            EXPECT_EQ(events[i].thread, all[i].thread) << length;
        }
        // (A cut trailer reads as records, and is damage.)
        if (length <= records_end) {
            EXPECT_EQ(reader.problem(), "") << length;
        }
        EXPECT_FALSE(reader.complete());
    }
}

TEST(EventsFormat, VarintsAndZigzagRoundTrip) {
    for (uint64_t value :
         {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{1} << 35, UINT64_MAX}) {
        uint8_t buffer[format::kMaxVarint];
        const uint8_t* end = format::put_varint(buffer, value);
        const uint8_t* in = buffer;
        uint64_t back = 0;
        ASSERT_TRUE(format::get_varint(&in, end, back));
        EXPECT_EQ(back, value);
        EXPECT_EQ(in, end);
    }
    for (int64_t value : {int64_t{0}, int64_t{-1}, int64_t{1}, INT64_MIN, INT64_MAX})
        EXPECT_EQ(format::unzigzag(format::zigzag(value)), value);
    EXPECT_EQ(format::zigzag(-1), 1u);
    EXPECT_EQ(format::zigzag(1), 2u);
}

}  // namespace
}  // namespace memusagestat
