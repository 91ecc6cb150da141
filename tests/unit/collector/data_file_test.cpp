// SPDX-License-Identifier: MIT
#include "record/data_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "test_files.h"

namespace memusage {
namespace {

TEST(DataFile, OpeningTruncatesAndWritesAProvisionalHeader) {
    ScratchFile scratch;
    {
        FILE* f = fopen(scratch.path(), "w");
        fputs("old contents that must go", f);
        fclose(f);
    }
    DataFile file;
    ASSERT_EQ(file.open(scratch.path(), 1234), OpenResult::opened);
    auto records = scratch.records();
    ASSERT_EQ(scratch.size(), 48);
    for (const Record& r : records) {
        EXPECT_EQ(r.heap, 0u);
        EXPECT_EQ(r.stack, 0u);
        EXPECT_EQ(r.time(), 1234u);
    }
    EXPECT_FALSE(header_is_complete(records[0], records[1]));
    file.close();
}

TEST(DataFile, RecordsFollowTheHeaderWhichIsRewrittenAtTheEnd) {
    ScratchFile scratch;
    DataFile file;
    ASSERT_EQ(file.open(scratch.path(), 10), OpenResult::opened);
    Record events[3] = {{100, 8, 11, 0}, {300, 16, 12, 0}, {200, 8, 13, 0}};
    file.append(events, 3);
    file.write_header(316, 300, 16, 99);
    file.close();
    auto records = scratch.records();
    ASSERT_EQ(records.size(), 5u);
    EXPECT_EQ(records[0].heap, 0u);
    EXPECT_EQ(records[0].stack, 316u);
    EXPECT_EQ(records[0].time(), 10u);
    EXPECT_EQ(records[1].heap, 300u);
    EXPECT_EQ(records[1].stack, 16u);
    EXPECT_EQ(records[1].time(), 99u);
    EXPECT_EQ(records[3].heap, 300u);
    EXPECT_EQ(records[4].time(), 13u);
    EXPECT_TRUE(header_is_complete(records[0], records[1]));
}

// A run that allocated nothing ends with zero peaks: the end time tells its header from
// the provisional one.
TEST(DataFile, AHeaderOfZeroPeaksWrittenAtTheEndIsComplete) {
    ScratchFile scratch;
    DataFile file;
    ASSERT_EQ(file.open(scratch.path(), 10), OpenResult::opened);
    file.write_header(0, 0, 0, 99);
    file.close();
    auto records = scratch.records();
    ASSERT_EQ(records.size(), 2u);
    EXPECT_TRUE(header_is_complete(records[0], records[1]));
}

TEST(DataFile, TimesAboveThirtyTwoBitsSurvive) {
    ScratchFile scratch;
    DataFile file;
    uint64_t start = (uint64_t{7} << 32) | 5;
    ASSERT_EQ(file.open(scratch.path(), start), OpenResult::opened);
    file.close();
    auto records = scratch.records();
    EXPECT_EQ(records[0].time_low, 5u);
    EXPECT_EQ(records[0].time_high, 7u);
}

TEST(DataFile, ASecondWriterIsTurnedAwayAndTruncatesNothing) {
    ScratchFile scratch;
    DataFile owner;
    ASSERT_EQ(owner.open(scratch.path(), 1), OpenResult::opened);
    Record event = {5, 5, 2, 0};
    owner.append(&event, 1);
    DataFile intruder;
    EXPECT_EQ(intruder.open(scratch.path(), 2), OpenResult::busy);
    EXPECT_FALSE(intruder.is_open());
    EXPECT_EQ(scratch.size(), 72);
    owner.close();
}

// A run beginning while another run's process still holds the file: the file is as it was
// when this run began, so the holder is none of this run's (which would have written it).
TEST(DataFile, AFileAnotherRunHoldsIsToldFromOneThisRunWrote) {
    ScratchFile scratch;
    DataFile other_run;
    ASSERT_EQ(other_run.open(scratch.path(), 1), OpenResult::opened);
    FileState at_start = file_state(scratch.path());
    DataFile late;
    EXPECT_EQ(late.open(scratch.path(), 2, &at_start), OpenResult::held);
    EXPECT_FALSE(late.is_open());
    Record event = {5, 5, 2, 0};
    other_run.append(&event, 1);
    EXPECT_EQ(late.open(scratch.path(), 3, &at_start), OpenResult::busy);
    EXPECT_EQ(scratch.size(), 72);
    other_run.close();
}

TEST(DataFile, UnwritablePlacesFail) {
    DataFile file;
    EXPECT_EQ(file.open("/nonexistent-directory/run.dat", 1), OpenResult::failed);
    EXPECT_EQ(file.open("", 1), OpenResult::failed);
    EXPECT_FALSE(file.is_open());
}

// Programs close descriptors they did not open and reuse the numbers: the file must
// neither lose its records nor write into whatever took its descriptor.
TEST(DataFile, SurvivesItsDescriptorBeingClosedAndReused) {
    ScratchFile scratch, bystander;
    DataFile file;
    ASSERT_EQ(file.open(scratch.path(), 1), OpenResult::opened);
    int other = open(bystander.path(), O_WRONLY);
    ASSERT_GE(other, 0);
    for (int fd = 3; fd < 1000; ++fd)
        if (fd != other) dup2(other, fd);
    Record event = {42, 1, 2, 0};
    file.append(&event, 1);
    file.write_header(43, 42, 1, 3);
    file.close();
    for (int fd = 3; fd < 1000; ++fd) close(fd);
    EXPECT_EQ(bystander.size(), 0);
    auto records = scratch.records();
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[2].heap, 42u);
    EXPECT_EQ(records[1].heap, 42u);
}

// The run began with the file as it is: nobody of the run has written it.
TEST(DataFile, TakesAFileUntouchedSinceTheRunBegan) {
    ScratchFile scratch;
    {
        FILE* f = fopen(scratch.path(), "w");
        fputs("an earlier run's file", f);
        fclose(f);
    }
    FileState at_start = file_state(scratch.path());
    DataFile file;
    ASSERT_EQ(file.open(scratch.path(), 7, &at_start), OpenResult::opened);
    file.close();
    EXPECT_EQ(scratch.size(), 48);
}

// An earlier sibling wrote the file and exited: its lock is gone, its records stay.
TEST(DataFile, LeavesAFileWrittenSinceTheRunBegan) {
    ScratchFile scratch;
    FileState at_start = file_state(scratch.path());
    {
        DataFile sibling;
        ASSERT_EQ(sibling.open(scratch.path(), 1, &at_start), OpenResult::opened);
        Record event = {5, 5, 2, 0};
        sibling.append(&event, 1);
        sibling.write_header(10, 5, 5, 3);
        sibling.close();
    }
    DataFile file;
    EXPECT_EQ(file.open(scratch.path(), 9, &at_start), OpenResult::busy);
    EXPECT_FALSE(file.is_open());
    ASSERT_EQ(scratch.size(), 72);
    EXPECT_EQ(scratch.records()[1].heap, 5u);
}

TEST(DataFile, AFileMissingWhenTheRunBeganGoesToWhoeverCreatesIt) {
    ScratchFile scratch;
    unlink(scratch.path());
    FileState at_start = file_state(scratch.path());
    ASSERT_FALSE(at_start.exists);
    DataFile first, second;
    ASSERT_EQ(first.open(scratch.path(), 1, &at_start), OpenResult::opened);
    first.close();
    EXPECT_EQ(second.open(scratch.path(), 2, &at_start), OpenResult::busy);
    EXPECT_EQ(scratch.records()[0].time(), 1u);
}

// Without the run's record (an image exec'd in place of the owner), the file is taken.
TEST(DataFile, UnconditionalOpenTakesAWrittenFile) {
    ScratchFile scratch;
    FileState at_start = file_state(scratch.path());
    DataFile first, second;
    ASSERT_EQ(first.open(scratch.path(), 1, &at_start), OpenResult::opened);
    first.close();
    EXPECT_EQ(second.open(scratch.path(), 2), OpenResult::opened);
    second.close();
    EXPECT_EQ(scratch.records()[0].time(), 2u);
}

}  // namespace
}  // namespace memusage
