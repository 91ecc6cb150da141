// SPDX-License-Identifier: MIT
#include "read/profile.h"

#include <gtest/gtest.h>

#include <random>

#include "records.h"

using memusagestat::HeaderRepair;
using memusagestat::parse_profile;
using memusagestat::Profile;
using stat_test::bytes_of;
using stat_test::header;
using stat_test::record;

namespace {

void expect_header(const memusagestat::ProfileHeader& header, uint64_t heap_peak,
                   uint64_t stack_peak, uint64_t total_peak, uint64_t start, uint64_t end) {
    EXPECT_EQ(header.heap_peak, heap_peak);
    EXPECT_EQ(header.stack_peak, stack_peak);
    EXPECT_EQ(header.total_peak, total_peak);
    EXPECT_EQ(header.start_time, start);
    EXPECT_EQ(header.end_time, end);
}

}  // namespace

TEST(Profile, CompleteHeaderIsTakenAsWritten) {
    auto file = header(5000, 300, 5100, 10, 90);
    file.push_back(record(100, 20, 20));
    file.push_back(record(5000, 100, 50));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_FALSE(profile.header.repaired);
    expect_header(profile.header, 5000, 300, 5100, 10, 90);
    ASSERT_EQ(profile.events.size(), 2u);
    EXPECT_EQ(profile.events[1].heap, 5000u);
    EXPECT_EQ(profile.ignored_tail_bytes, 0u);
}

TEST(Profile, ZeroPeakHeaderIsRepairedFromTheEvents) {
    auto file = header(0, 0, 0, 1000, 1000);  // a run that died before its exit handler
    file.push_back(record(100, 50, 1010));
    file.push_back(record(700, 10, 1020));
    file.push_back(record(300, 600, 1030));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_TRUE(profile.header.repaired);
    // The total peak is 300 + 600 (one record's sum), not 700 + 600.
    expect_header(profile.header, 700, 600, 900, 1000, 1030);
}

// Zero peaks alone are no sign of a death: a run that allocated nothing has them too. Its
// exit wrote the end time into record 1, which a run that died leaves at the start time.
TEST(Profile, ZeroPeaksWithAnEndTimeAreACompleteRunThatAllocatedNothing) {
    auto file = header(0, 0, 0, 1000, 5000);
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_FALSE(profile.header.repaired);
    expect_header(profile.header, 0, 0, 0, 1000, 5000);
    // Timer ticks of such a run are events at a heap of 0.
    file.push_back(record(0, 0, 2000));
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_FALSE(profile.header.repaired);
    expect_header(profile.header, 0, 0, 0, 1000, 5000);
}

TEST(Profile, RepairCanBeLeftToTheCaller) {
    auto file = header(0, 0, 0, 0, 0);
    file.push_back(record(100, 50, 1));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile, HeaderRepair::leave).error(), "");
    EXPECT_TRUE(profile.header.repaired);
    EXPECT_EQ(profile.header.heap_peak, 0u);
}

TEST(Profile, HeaderOnlyFileHasNoEvents) {
    auto file = header(0, 0, 0, 5, 5);
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_TRUE(profile.events.empty());
    EXPECT_EQ(profile.header.end_time, 5u);
}

TEST(Profile, PartialTrailingRecordIsIgnoredAndCounted) {
    auto file = header(10, 10, 20, 0, 9);
    file.push_back(record(10, 10, 5));
    file.push_back(record(99, 99, 99));
    auto bytes = bytes_of(file);
    Profile profile;
    ASSERT_EQ(parse_profile(bytes.first(bytes.size() - 7), profile).error(), "");
    EXPECT_EQ(profile.events.size(), 1u);
    EXPECT_EQ(profile.ignored_tail_bytes, 17u);
}

// The collector lengthens the file before each write; a run killed in the middle of
// one leaves zero records, which no event can be (its time is never 0).
TEST(Profile, ZeroRecordsAtTheEndOfAKilledRunAreDroppedAndCounted) {
    auto file = header(0, 0, 0, 1000, 1000);
    file.push_back(record(100, 50, 1010));
    file.push_back(record(5000, 0, 0));     // timeless in the middle: left to the consumer,
    file.push_back(record(700, 10, 1020));  // and no part of the repaired header
    file.push_back(record(0, 0, 0));
    file.push_back(record(0, 0, 0));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_EQ(profile.events.size(), 3u);
    EXPECT_EQ(profile.timeless_tail_records, 2u);
    expect_header(profile.header, 700, 50, 710, 1000, 1020);
}

// A kill between two pages of one write cuts the record across the page boundary: its
// heap is written, its stack and time are the zeros the file was lengthened with.
TEST(Profile, ARecordCutShortNeverGivesTheEndTimeNorAPeak) {
    for (uint64_t torn_stack : {0, 70}) {  // cut after the heap, or after the stack
        auto file = header(0, 0, 0, 1000, 1000);
        file.push_back(record(100, 50, 1010));
        file.push_back(record(700, 10, 1020));
        file.push_back(record(900, torn_stack, 0));
        file.push_back(record(0, 0, 0));
        Profile profile;
        ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
        EXPECT_EQ(profile.events.size(), 2u);
        EXPECT_EQ(profile.timeless_tail_records, 2u);
        expect_header(profile.header, 700, 50, 710, 1000, 1020);
    }
}

TEST(Profile, ACompletedRunAlsoLosesItsTimelessTail) {
    auto file = header(100, 50, 150, 1000, 1020);
    file.push_back(record(100, 50, 1010));
    file.push_back(record(100, 0, 0));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_FALSE(profile.header.repaired);
    EXPECT_EQ(profile.events.size(), 1u);
    EXPECT_EQ(profile.timeless_tail_records, 1u);
}

TEST(Profile, TooShortOrEmptyIsRefused) {
    auto file = header(10, 10, 20, 0, 9);
    auto bytes = bytes_of(file);
    Profile profile;
    EXPECT_NE(parse_profile(bytes.first(0), profile).error().find("incorrect size"),
              std::string::npos);
    EXPECT_NE(parse_profile(bytes.first(24), profile).error().find("incorrect size"),
              std::string::npos);
    EXPECT_NE(parse_profile(bytes.first(47), profile).error().find("incorrect size"),
              std::string::npos);
    EXPECT_EQ(parse_profile(bytes.first(48), profile).error(), "");
}

TEST(Profile, MisalignedBytesAreRefusedNotRead) {
    std::vector<memusage::Record> file(4);
    auto bytes = bytes_of(file);
    Profile profile;
    EXPECT_FALSE(parse_profile(bytes.subspan(1, 72), profile).ok());
}

TEST(Profile, AbsurdValuesSaturateInsteadOfWrapping) {
    auto file = header(0, 0, 0, UINT64_MAX, UINT64_MAX);  // provisional: a run that died
    file.push_back(record(UINT64_MAX, UINT64_MAX, 1));
    file.push_back(record(1, 1, UINT64_MAX));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    EXPECT_EQ(profile.header.heap_peak, UINT64_MAX);
    EXPECT_EQ(profile.header.total_peak, UINT64_MAX);
}

TEST(Profile, RandomBytesNeverCrash) {
    std::mt19937_64 random(42);
    for (int round = 0; round < 200; ++round) {
        std::vector<memusage::Record> file(1 + random() % 64);
        for (auto& r : file) r = record(random(), random(), random());
        auto bytes = bytes_of(file);
        Profile profile;
        const size_t given = random() % (bytes.size() + 1);
        const std::string error = parse_profile(bytes.first(given), profile).error();
        if (error.empty()) {
            // Every byte given is accounted for: the header, the events, the timeless
            // records dropped from the end and a partial last record.
            EXPECT_EQ(
                memusage::kHeaderRecords + profile.events.size() + profile.timeless_tail_records,
                given / sizeof(memusage::Record));
            EXPECT_EQ(profile.ignored_tail_bytes, given % sizeof(memusage::Record));
            // A rebuilt header's total is some event's heap plus stack, so never below the
            // heap's peak.
            if (profile.header.repaired) {
                EXPECT_GE(profile.header.total_peak, profile.header.heap_peak);
            }
            EXPECT_LE(profile.events.size(), file.size());
        } else {
            EXPECT_NE(error.find("incorrect size"), std::string::npos);
        }
    }
}

TEST(Profile, EncodedHeaderRoundTrips) {
    memusagestat::ProfileHeader written{700, 600, 900, 1000, 1030, true};
    std::vector<memusage::Record> file(2);
    memusagestat::encode_header(written, file.data());
    EXPECT_TRUE(memusage::header_is_complete(file[0], file[1]));
    Profile profile;
    ASSERT_EQ(parse_profile(bytes_of(file), profile).error(), "");
    expect_header(profile.header, 700, 600, 900, 1000, 1030);
}
