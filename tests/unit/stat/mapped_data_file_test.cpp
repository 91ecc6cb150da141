// SPDX-License-Identifier: MIT
#include "read/mapped_data_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "graph/build_envelope.h"
#include "records.h"
#include "support/scratch_directory.h"

using memusagestat::MappedDataFile;
using stat_test::header;
using stat_test::record;

namespace {

class TempFile {
  public:
    TempFile() : path_(directory_.file("data")) { std::ofstream(path_).close(); }
    const std::string& path() const { return path_; }
    const std::string& directory() const { return directory_.path(); }

    void write(const std::vector<memusage::Record>& records, std::size_t drop_bytes = 0) const {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(
            reinterpret_cast<const char*>(records.data()),
            static_cast<std::streamsize>(records.size() * sizeof(memusage::Record) - drop_bytes));
    }
    std::vector<memusage::Record> read() const {
        std::ifstream in(path_, std::ios::binary);
        std::vector<memusage::Record> records(std::filesystem::file_size(path_) /
                                              sizeof(memusage::Record));
        in.read(reinterpret_cast<char*>(records.data()),
                static_cast<std::streamsize>(records.size() * sizeof(memusage::Record)));
        return records;
    }

  private:
    test_support::ScratchDirectory directory_{"memusagestat-unit"};
    std::string path_;
};

}  // namespace

TEST(MappedDataFile, MissingFileGivesTheSystemReason) {
    MappedDataFile file;
    const std::string error = file.open("/nonexistent/memusagestat/data").error();
    EXPECT_NE(error.find("cannot open input file"), std::string::npos);
    EXPECT_NE(error.find("No such file"), std::string::npos);
}

TEST(MappedDataFile, DirectoryIsRefused) {
    MappedDataFile file;
    const TempFile scratch;
    EXPECT_NE(file.open(scratch.directory()).error().find("not a regular file"), std::string::npos);
}

TEST(MappedDataFile, EmptyFileIsRefused) {
    TempFile temp;
    MappedDataFile file;
    EXPECT_NE(file.open(temp.path()).error().find("incorrect size"), std::string::npos);
}

TEST(MappedDataFile, ReadsEventsInChunksInOrder) {
    auto records = header(0, 0, 0, 0, 0);
    const std::size_t count = 300000;  // spans several chunks
    for (std::size_t i = 0; i < count; ++i) records.push_back(record(i, 1, i));
    TempFile temp;
    temp.write(records);
    MappedDataFile file;
    ASSERT_EQ(file.open(temp.path()).error(), "");
    uint64_t expected = 0;
    bool in_order = true;
    file.visit_events(0, count, [&](std::span<const memusage::Record> chunk) {
        for (const auto& r : chunk) in_order &= r.heap == expected++;
    });
    EXPECT_TRUE(in_order);
    EXPECT_EQ(expected, count);
    // A part in the middle, not starting on a page boundary, through its own mapping.
    expected = 123457;
    file.visit_events(123457, 100000, [&](std::span<const memusage::Record> chunk) {
        for (const auto& r : chunk) in_order &= r.heap == expected++;
    });
    EXPECT_TRUE(in_order);
    EXPECT_EQ(expected, 223457u);
}

TEST(MappedDataFile, EnvelopeInPartsEqualsEnvelopeInOnePass) {
    auto records = header(1, 1, 2, 0, 400000);
    const std::size_t count = 400000;
    for (std::size_t i = 0; i < count; ++i)
        records.push_back(record((i * 7919) % 100003, i % 977, i));
    TempFile temp;
    temp.write(records);
    MappedDataFile file;
    ASSERT_EQ(file.open(temp.path()).error(), "");
    for (bool time_based : {false, true}) {
        const memusagestat::Placement placement{time_based, 333, true, 0, 400000};
        const auto whole = memusagestat::build_envelope(file, placement, 1);
        const auto parts = memusagestat::build_envelope(file, placement, 3);
        ASSERT_EQ(whole.columns().size(), parts.columns().size());
        for (std::size_t c = 0; c < whole.columns().size(); ++c) {
            const auto& a = whole.columns()[c];
            const auto& b = parts.columns()[c];
            SCOPED_TRACE("column " + std::to_string(c));
            EXPECT_EQ(a.records, b.records);
            EXPECT_EQ(a.heap.min, b.heap.min);
            EXPECT_EQ(a.heap.max, b.heap.max);
            EXPECT_EQ(a.heap.last, b.heap.last);
            EXPECT_EQ(a.stack.last, b.stack.last);
            EXPECT_EQ(a.total.max, b.total.max);
            EXPECT_EQ(a.last_time, b.last_time);
        }
    }
}

TEST(MappedDataFile, RepairedHeaderIsWrittenBack) {
    auto records = header(0, 0, 0, 100, 100);
    records.push_back(record(40, 8, 110));
    records.push_back(record(90, 4, 120));
    TempFile temp;
    temp.write(records);
    {
        MappedDataFile file;
        ASSERT_EQ(file.open(temp.path()).error(), "");
        EXPECT_TRUE(file.profile().header.repaired);
        EXPECT_EQ(file.profile().header.heap_peak, 90u);
    }
    const auto after = temp.read();
    ASSERT_EQ(after.size(), 4u);
    EXPECT_EQ(after[0].stack, 94u);  // total peak
    EXPECT_EQ(after[0].time(), 100u);
    EXPECT_EQ(after[1].heap, 90u);
    EXPECT_EQ(after[1].stack, 8u);
    EXPECT_EQ(after[1].time(), 120u);
    EXPECT_EQ(after[3].heap, 90u);  // events untouched
}

TEST(MappedDataFile, PartialRecordIsReportedNotFatal) {
    auto records = header(9, 9, 18, 0, 1);
    records.push_back(record(9, 9, 1));
    records.push_back(record(9, 9, 1));
    TempFile temp;
    temp.write(records, 5);
    MappedDataFile file;
    ASSERT_EQ(file.open(temp.path()).error(), "");
    EXPECT_EQ(file.profile().events.size(), 1u);
    EXPECT_EQ(file.profile().ignored_tail_bytes, 19u);
}

// A kill between two pages of one write: the last record has its heap and nothing else.
TEST(MappedDataFile, RepairTakesNoEndTimeFromARecordCutShort) {
    auto records = header(0, 0, 0, 100, 100);
    records.push_back(record(40, 8, 110));
    records.push_back(record(90, 4, 120));
    records.push_back(record(95, 0, 0));
    records.push_back(record(0, 0, 0));
    TempFile temp;
    temp.write(records);
    {
        MappedDataFile file;
        ASSERT_EQ(file.open(temp.path()).error(), "");
        EXPECT_EQ(file.profile().events.size(), 2u);
        EXPECT_EQ(file.profile().timeless_tail_records, 2u);
        EXPECT_EQ(file.profile().header.end_time, 120u);
    }
    const auto after = temp.read();
    ASSERT_EQ(after.size(), 6u);
    EXPECT_EQ(after[1].heap, 90u);
    EXPECT_EQ(after[1].time(), 120u);
}

TEST(MappedDataFile, NoZeroEndTimeIsWrittenBack) {
    auto records = header(0, 0, 0, 0, 0);
    records.push_back(record(50, 0, 0));
    TempFile temp;
    temp.write(records);
    {
        MappedDataFile file;
        ASSERT_EQ(file.open(temp.path()).error(), "");
        EXPECT_EQ(file.profile().header.end_time, 0u);
    }
    const auto after = temp.read();
    ASSERT_EQ(after.size(), 3u);
    EXPECT_EQ(after[1].heap, 0u) << "the header stays as the run left it";
    EXPECT_EQ(after[2].heap, 50u);
}
