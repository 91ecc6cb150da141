#include "record_writer.h"

#include <gtest/gtest.h>

#include <vector>

#include "test_files.h"

namespace memusage {
namespace {

// Fills `buffer` with records numbered from `first`.
void number(Record* buffer, uint32_t count, uint64_t first) {
    for (uint32_t i = 0; i < count; ++i) buffer[i] = Record{first + i, 0, 0, 0};
}

void expect_numbered(const std::vector<Record>& records, uint64_t count) {
    ASSERT_EQ(records.size(), kHeaderRecords + count);
    for (uint64_t i = 0; i < count; ++i) ASSERT_EQ(records[kHeaderRecords + i].heap, i) << i;
}

// A writer of buffers of `capacity` records into a fresh scratch file.
struct WriterOnScratch {
    explicit WriterOnScratch(uint32_t capacity) {
        EXPECT_EQ(file.open(scratch.path(), 1), DataFile::OpenResult::opened);
        EXPECT_TRUE(writer.init(&file, capacity));
    }
    long records_in_file() const {
        return (scratch.size() - static_cast<long>(kHeaderRecords * sizeof(Record))) /
               static_cast<long>(sizeof(Record));
    }

    ScratchFile scratch;
    DataFile file;
    RecordWriter writer;
};

// Buffers taking turns on the writer thread reach the file whole and in order.
TEST(RecordWriter, BackgroundBuffersArriveInOrder) {
    constexpr uint32_t kCapacity = RecordWriter::kMinBackgroundRecords;
    WriterOnScratch on(kCapacity);
    RecordWriter& writer = on.writer;
    Record* buffer = writer.first_buffer();
    for (uint64_t round = 0; round < 50; ++round) {
        number(buffer, kCapacity, round * kCapacity);
        Record* next = writer.submit(buffer, kCapacity, true);
        ASSERT_NE(next, buffer) << "the full buffer is the writer's now";
        buffer = next;
    }
    number(buffer, 10, 50 * kCapacity);
    ASSERT_TRUE(writer.write_here_from_now());
    EXPECT_EQ(writer.submit(buffer, 10, true), buffer) << "written here, at once";
    writer.stop();
    on.file.close();
    expect_numbered(on.scratch.records(), 50 * kCapacity + 10);
}

// Small buffers (MEMUSAGE_BUFFER_SIZE below a log's size) are written by the submitter,
// so the file keeps up with the program, as the variable asks.
TEST(RecordWriter, SmallBuffersAreWrittenAtOnce) {
    ScratchFile scratch;
    DataFile file;
    ASSERT_EQ(file.open(scratch.path(), 1), DataFile::OpenResult::opened);
    RecordWriter writer;
    ASSERT_TRUE(writer.init(&file, 3));
    Record* buffer = writer.first_buffer();
    for (uint64_t round = 0; round < 4; ++round) {
        number(buffer, 3, round * 3);
        EXPECT_EQ(writer.submit(buffer, 3, true), buffer);
        EXPECT_EQ(scratch.size(),
                  static_cast<long>((kHeaderRecords + 3 * (round + 1)) * sizeof(Record)));
    }
    writer.stop();
    expect_numbered(scratch.records(), 12);
}

// A signal handler cannot start a thread: until one runs, its buffer is written at once.
TEST(RecordWriter, WithoutLeaveToStartTheThreadTheSubmitterWrites) {
    constexpr uint32_t kCapacity = RecordWriter::kMinBackgroundRecords;
    WriterOnScratch on(kCapacity);
    Record* buffer = on.writer.first_buffer();
    number(buffer, kCapacity, 0);
    EXPECT_EQ(on.writer.submit(buffer, kCapacity, false), buffer);
    EXPECT_EQ(on.records_in_file(), static_cast<long>(kCapacity));
    on.writer.stop();
    expect_numbered(on.scratch.records(), kCapacity);
}

}  // namespace
}  // namespace memusage
