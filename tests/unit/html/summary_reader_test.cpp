// SPDX-License-Identifier: MIT
#include "read/summary_reader.h"

#include <gtest/gtest.h>
#include <memusage/summary_format.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "html/page_summary.h"

namespace memusagestat {
namespace {

namespace format = memusage::summary_format;

std::vector<std::byte> summary_file(const memusage::Stats& stats, uint32_t flags = 0) {
    format::FileHeader header{};
    std::memcpy(header.magic, format::kMagic, sizeof header.magic);
    header.version = format::kVersion;
    header.header_bytes = sizeof header;
    header.byte_order = format::kByteOrderMark;
    header.word_bytes = sizeof(void*);
    header.stats_bytes = format::kStatsBytes;
    header.flags = flags;
    header.pid = 77;
    header.start_cycles = 1000;
    header.start_ns = 5000;
    header.end_cycles = 3001000;
    header.end_ns = 1005000;
    std::vector<std::byte> bytes(sizeof header + sizeof stats);
    std::memcpy(bytes.data(), &header, sizeof header);
    std::memcpy(bytes.data() + sizeof header, &stats, sizeof stats);
    return bytes;
}

memusage::Stats some_stats() {
    memusage::Stats stats{};
    stats.calls_of(memusage::Call::malloc) = 3;
    stats.bytes_of(memusage::Call::malloc) = 300;
    stats.failed_of(memusage::Call::malloc) = 1;
    stats.calls_of(memusage::Call::free) = 2;
    stats.realloc_nomove = 4;
    stats.histogram[memusage::histogram_bucket(100)] = 2;
    stats.histogram[memusage::kHistogramLarge] = 1;
    stats.heap_peak = 200;
    stats.stack_peak = 64;
    return stats;
}

TEST(SummaryFile, ReadsBackTheStatsAndTheClock) {
    RunSummary summary;
    ASSERT_EQ(parse_summary(summary_file(some_stats(), format::kMmapRows), summary).error(), "");
    const memusage::Stats expected = some_stats();
    EXPECT_EQ(std::memcmp(&summary.stats, &expected, sizeof expected), 0);
    EXPECT_TRUE(summary.mmap_rows);
    EXPECT_EQ(summary.pid, 77u);
    EXPECT_DOUBLE_EQ(summary.seconds_per_cycle(), 1e-9 / 3);
}

// Every field is 64 bits wide on every machine: a 32-bit board's file reads as it is.
// Version 2 carries the command line after the figures, each word ended by a NUL.
TEST(SummaryFile, ReadsBackTheCommandLine) {
    RunSummary summary;
    auto bytes = summary_file(some_stats(), format::kCommand);
    for (char c : std::string_view("./prog\0--words\0"
                                   "200\0",
                                   19))
        bytes.push_back(static_cast<std::byte>(c));
    ASSERT_EQ(parse_summary(bytes, summary).error(), "");
    EXPECT_EQ(summary.command, "./prog --words 200");
    EXPECT_EQ(summary.stats.heap_peak, some_stats().heap_peak);
    // Without its last NUL, the command line was cut: damage.
    bytes.pop_back();
    EXPECT_NE(parse_summary(bytes, summary).error().find("command line"), std::string::npos);
}

TEST(SummaryFile, AVersionOneFileReadsWithoutACommandAndNothingMayFollowItsFigures) {
    RunSummary summary;
    auto bytes = summary_file(some_stats());
    reinterpret_cast<format::FileHeader*>(bytes.data())->version = 1;
    ASSERT_EQ(parse_summary(bytes, summary).error(), "");
    EXPECT_EQ(summary.command, "");
    bytes.push_back(std::byte{0});
    EXPECT_NE(parse_summary(bytes, summary).error().find("after its figures"), std::string::npos);
}

TEST(SummaryFile, AThirtyTwoBitBoardsFileReads) {
    RunSummary summary;
    auto bytes = summary_file(some_stats());
    reinterpret_cast<format::FileHeader*>(bytes.data())->word_bytes = 4;
    ASSERT_EQ(parse_summary(bytes, summary).error(), "");
    EXPECT_EQ(summary.stats.heap_peak, some_stats().heap_peak);
    EXPECT_EQ(summary.stats.histogram[memusage::kHistogramLarge], 1u);
}

TEST(SummaryFile, AnotherMachinesOrANewerVersionsFileIsRefusedWithAMessage) {
    RunSummary summary;
    auto bytes = summary_file(some_stats());
    auto* header = reinterpret_cast<format::FileHeader*>(bytes.data());
    header->byte_order = __builtin_bswap32(format::kByteOrderMark);
    EXPECT_NE(parse_summary(bytes, summary).error().find("other byte order"), std::string::npos);
    bytes = summary_file(some_stats());
    header = reinterpret_cast<format::FileHeader*>(bytes.data());
    header->version = format::kVersion + 1;
    EXPECT_NE(parse_summary(bytes, summary).error().find("newer"), std::string::npos);
    bytes = summary_file(some_stats());
    bytes.pop_back();
    EXPECT_NE(parse_summary(bytes, summary).error().find("cut short"), std::string::npos);
    bytes = summary_file(some_stats());
    std::memset(bytes.data(), 0, 8);  // a run killed before the magic was written
    EXPECT_NE(parse_summary(bytes, summary).error().find("not a memusage summary"),
              std::string::npos);
    const std::vector<std::byte> whole = summary_file(some_stats());
    for (size_t size = 0; size < sizeof(format::FileHeader); ++size)
        EXPECT_FALSE(parse_summary(std::span(whole).first(size), summary).ok()) << size;
}

TEST(SummaryFile, TheReportsSummaryHasTheRowsThePrintedOneHas) {
    const nlohmann::json json = summary_json(some_stats(), false);
    EXPECT_EQ(json["heap_total"], 300);
    EXPECT_EQ(json["all_calls"], 3);
    EXPECT_EQ(json["rows"].size(), 4u);  // malloc, realloc, calloc, free: no aligned, no mmap
    EXPECT_EQ(json["rows"][0],
              nlohmann::json::parse(R"({"name":"malloc","calls":3,"bytes":300,"failed":1})"));
    EXPECT_TRUE(json["rows"][3]["failed"].is_null());
    EXPECT_TRUE(json["mremap"].is_null());
    EXPECT_EQ(json["histogram"], nlohmann::json::parse(R"([{"from":96,"to":111,"count":2},
                                                           {"from":65536,"to":null,"count":1}])"));
    EXPECT_EQ(summary_json(some_stats(), true)["rows"].size(), 9u);
}

}  // namespace
}  // namespace memusagestat
