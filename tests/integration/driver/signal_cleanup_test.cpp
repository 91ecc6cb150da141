// SPDX-License-Identifier: MIT
// A driver told to stop passes the signal on, and still removes its temporary file.
#include <signal.h>

#include <filesystem>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

namespace fs = std::filesystem;

using SignalCleanupTest = ScratchDirectoryTest;

TEST_F(SignalCleanupTest, TemporaryFileGoesWhenTheDriverIsTerminated) {
    std::string temporary_directory = in_scratch("tmp");
    fs::create_directory(temporary_directory);
    std::string started = in_scratch("started");
    pid_t driver = start(
        MEMUSAGE_DRIVER_PATH, {"-p", in_scratch("graph.png"), FIXTURE_PATH, "wait", started},
        clean_environment({"TMPDIR=" + temporary_directory}), in_scratch("out"), in_scratch("err"));
    ASSERT_TRUE(wait_until_exists(started)) << read_file(in_scratch("err"));
    EXPECT_FALSE(fs::is_empty(temporary_directory)) << "the data file exists during the run";
    ::kill(driver, SIGTERM);
    EXPECT_EQ(wait_exit_code(driver), 128 + SIGTERM) << read_file(in_scratch("err"));
    EXPECT_TRUE(fs::is_empty(temporary_directory));
}

}  // namespace
}  // namespace driver_test
