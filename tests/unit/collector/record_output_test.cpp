#include "record_output.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_files.h"

namespace memusage {
namespace {

constexpr uint32_t kWindow = RecordOutput::kWindowRecords;

// An output into a fresh scratch file, as the collector sets it up: header first.
struct OutputOnScratch {
    explicit OutputOnScratch(uint32_t buffer_records,
                             RecordOutput::Mode mode = RecordOutput::Mode::mapped) {
        EXPECT_EQ(file.open(scratch.path(), 1), DataFile::OpenResult::opened);
        EXPECT_TRUE(output.init(&file, buffer_records, mode));
    }
    // Stores records numbered from `stored` on, moving on whenever the output is full.
    void store(uint64_t count, bool may_start_thread = true) {
        for (uint64_t i = 0; i < count; ++i) {
            if (used == output.capacity()) {
                ASSERT_NE(output.next(may_start_thread), nullptr);
                used = 0;
            }
            output.current()[used++] = Record{stored++, 7, 1, 0};
        }
    }
    long records_in_file() const {
        return (scratch.size() - static_cast<long>(kHeaderRecords * sizeof(Record))) /
               static_cast<long>(sizeof(Record));
    }

    ScratchFile scratch;
    DataFile file;
    RecordOutput output;
    uint32_t used = 0;
    uint64_t stored = 0;
};

void expect_numbered(const std::vector<Record>& records, uint64_t count) {
    ASSERT_GE(records.size(), kHeaderRecords + count);
    for (uint64_t i = 0; i < count; ++i) ASSERT_EQ(records[kHeaderRecords + i].heap, i) << i;
}

// Threads of this process named as RecordOutput names its own (a sanitizer has its own).
size_t output_threads() {
    size_t count = 0;
    if (DIR* tasks = opendir("/proc/self/task")) {
        while (dirent* entry = readdir(tasks)) {
            if (entry->d_name[0] == '.') continue;
            std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
            std::string name;
            if (std::getline(comm, name) && name == RecordOutput::kThreadName) ++count;
        }
        closedir(tasks);
    }
    return count;
}

// A thread names itself once it runs, and leaves /proc a moment after it is joined.
bool output_threads_become(size_t count) {
    for (int tries = 0; tries < 1000; ++tries) {
        if (output_threads() == count) return true;
        usleep(1000);
    }
    return false;
}

TEST(RecordOutput, RecordsGoStraightIntoTheFileAndItIsCutAfterTheLast) {
    OutputOnScratch on(32768);
    ASSERT_EQ(on.output.mode(), RecordOutput::Mode::mapped);
    on.store(10 * kWindow + 123);
    ASSERT_TRUE(on.output.finish(on.used));
    on.file.close();
    EXPECT_EQ(on.records_in_file(), static_cast<long>(on.stored));
    expect_numbered(on.scratch.records(), on.stored);
}

// What a run killed now leaves: every record stored so far, then zero records (room
// made ahead), which readers drop.
TEST(RecordOutput, EveryStoredRecordIsInTheFileAtEveryMoment) {
    OutputOnScratch on(32768);
    for (uint64_t part : {uint64_t{5}, uint64_t{kWindow}, uint64_t{3 * kWindow + 7}}) {
        on.store(part);
        std::vector<Record> records = on.scratch.records();
        expect_numbered(records, on.stored);
        for (size_t i = kHeaderRecords + on.stored; i < records.size(); ++i)
            ASSERT_EQ(records[i].time(), 0u) << "record " << i << " after " << on.stored;
    }
    EXPECT_TRUE(on.output.finish(on.used));
}

// A signal handler cannot start a thread: until one runs, the windows are made here.
TEST(RecordOutput, OnlyWhenAllowedIsTheThreadStarted) {
    OutputOnScratch on(32768);
    on.store(3 * kWindow, false);
    EXPECT_EQ(output_threads(), 0u);
    on.store(3 * kWindow, true);
    EXPECT_TRUE(output_threads_become(1)) << "a thread of ours once allowed";
    ASSERT_TRUE(on.output.finish(on.used));
    EXPECT_TRUE(output_threads_become(0)) << "finish ends the thread";
    on.file.close();
    EXPECT_EQ(on.records_in_file(), static_cast<long>(on.stored));
    expect_numbered(on.scratch.records(), on.stored);
}

// A file that cannot be mapped gets MEMUSAGE_BUFFER_SIZE records per write.
TEST(RecordOutput, WrittenModeWritesABufferAtATime) {
    OutputOnScratch on(3, RecordOutput::Mode::written);
    ASSERT_EQ(on.output.mode(), RecordOutput::Mode::written);
    for (long round = 1; round <= 4; ++round) {
        on.store(3);
        EXPECT_EQ(on.records_in_file(), 3 * (round - 1))
            << "written when the next record needs room";
    }
    on.store(2);
    ASSERT_TRUE(on.output.finish(on.used));
    on.file.close();
    EXPECT_EQ(on.records_in_file(), 14);
    expect_numbered(on.scratch.records(), 14);
}

}  // namespace
}  // namespace memusage
