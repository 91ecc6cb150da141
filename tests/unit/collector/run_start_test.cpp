// SPDX-License-Identifier: MIT
// The record of a run's start that memusage and the collector pass down the process tree.
#include "memusage/run_start.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include "support/scratch_directory.h"

namespace memusage {
namespace {

TEST(RunStart, AStateRoundTripsForItsOwnFileOnly) {
    FileState state{true, 2049, 123456, 48, 1700000000123456789, -5};
    char text[256];
    ASSERT_TRUE(format_run_start(state, "/tmp/a:b c.dat", text, sizeof text));
    FileState parsed;
    ASSERT_TRUE(parse_run_start(text, "/tmp/a:b c.dat", parsed));
    EXPECT_EQ(parsed, state);
    EXPECT_FALSE(parse_run_start(text, "/tmp/other.dat", parsed));
}

TEST(RunStart, AMissingFileIsRecordedAsMissing) {
    char text[64];
    ASSERT_TRUE(format_run_start(FileState{}, "x.dat", text, sizeof text));
    EXPECT_STREQ(text, "-:x.dat");
    FileState parsed{true, 1, 1, 1, 1, 1};
    ASSERT_TRUE(parse_run_start(text, "x.dat", parsed));
    EXPECT_FALSE(parsed.exists);
}

TEST(RunStart, NothingUsableIsNoRun) {
    FileState parsed;
    EXPECT_FALSE(parse_run_start(nullptr, "x.dat", parsed));
    EXPECT_FALSE(parse_run_start("", "x.dat", parsed));
    EXPECT_FALSE(parse_run_start("1:2:x.dat", "x.dat", parsed));
    EXPECT_FALSE(parse_run_start("a:2:3:4:5:x.dat", "x.dat", parsed));
    char small[8];
    volatile size_t room = sizeof small;  // hidden from the compiler, which would warn
    EXPECT_FALSE(format_run_start(FileState{}, "a-long-name.dat", small, room));
}

TEST(RunStart, TheStateOfAFileShowsItsBeingWritten) {
    const test_support::ScratchDirectory scratch("memusage-run-start");
    const std::string file = scratch.file("run.dat");
    const char* path = file.c_str();
    int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    FileState before = file_state(path);
    EXPECT_TRUE(before.exists);
    EXPECT_EQ(before, file_state(path));
    ASSERT_EQ(write(fd, "x", 1), 1);
    EXPECT_NE(before, file_state(path));
    close(fd);
    unlink(path);
    EXPECT_FALSE(file_state(path).exists);
}

}  // namespace
}  // namespace memusage
