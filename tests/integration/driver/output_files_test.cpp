// SPDX-License-Identifier: MIT
// The files a run writes (-d, --sites-file, --events): a name that cannot be one is refused
// with its reason, and the program runs on.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

using OutputFilesTest = ScratchDirectoryTest;

// Runs the driver, killing it after a minute: a FIFO opened for writing waits for a reader.
DriverRun run_with_deadline(const std::vector<std::string>& arguments, const std::string& out,
                            const std::string& err) {
    pid_t driver = start(MEMUSAGE_DRIVER_PATH, arguments, clean_environment({}), out, err);
    DriverRun result;
    int status = 0;
    for (int tenths = 0; tenths < 600; ++tenths) {
        if (::waitpid(driver, &status, WNOHANG) == driver) {
            result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
            break;
        }
        ::usleep(100000);
    }
    if (result.exit_code == -1) {
        ::kill(-driver, SIGKILL);
        ::kill(driver, SIGKILL);
        ::waitpid(driver, &status, 0);
    }
    result.out = read_file(out);
    result.err = read_file(err);
    return result;
}

// A FIFO named for any of the three is refused as not a regular file, before the program's
// main: the program runs to its end, unprofiled into that file.
TEST_F(OutputFilesTest, AFifoIsRefusedWhicheverFileItIsNamedFor) {
    const std::string fifo = in_scratch("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const char* option : {"--sites-file", "-d", "--events"}) {
        SCOPED_TRACE(option);
        std::vector<std::string> arguments = {"--color=never", option, fifo};
        if (std::string(option) != "--sites-file") {
            arguments.insert(arguments.begin(), "--sites-file");
            arguments.insert(arguments.begin() + 1, in_scratch("run.sites"));
        }
        arguments.insert(arguments.end(), {FIXTURE_PATH, "args", "ran"});
        DriverRun result = run_with_deadline(arguments, in_scratch("out"), in_scratch("err"));
        ASSERT_NE(result.exit_code, -1) << "the run waited on the FIFO\n" << result.err;
        EXPECT_EQ(result.out, "[ran]\n");
        const std::string what = std::string(option) == "-d"         ? "data file"
                                 : std::string(option) == "--events" ? "events file"
                                                                     : "allocation sites file";
        EXPECT_NE(result.err.find("memusage: cannot write the " + what + " " + fifo +
                                  ": not a regular file\n"),
                  std::string::npos)
            << result.err;
    }
}

// An open that fails says why.
TEST_F(OutputFilesTest, AFileThatCannotBeOpenedIsSaidWithTheReason) {
    const std::string missing = in_scratch("no-such-directory/run");
    for (const char* option : {"-d", "--events", "--sites-file"}) {
        SCOPED_TRACE(option);
        DriverRun result =
            run_with_deadline({"--color=never", option, missing, FIXTURE_PATH, "args", "ran"},
                              in_scratch("out"), in_scratch("err"));
        EXPECT_EQ(result.out, "[ran]\n");
        EXPECT_NE(result.err.find(missing + ": No such file or directory\n"), std::string::npos)
            << result.err;
    }
}

// Two runs given the same file: the second would find it held by the first's collector,
// write nothing, and report the first run's. It refuses at its start instead, saying why.
TEST_F(OutputFilesTest, AFileAnotherRunIsWritingIsRefusedAtTheStart) {
    const std::string shared = in_scratch("shared");
    for (const char* option : {"--sites-file", "-d", "--events"}) {
        SCOPED_TRACE(option);
        const std::string started = in_scratch(std::string("started") + option);
        pid_t first = start(
            MEMUSAGE_DRIVER_PATH, {"--color=never", option, shared, FIXTURE_PATH, "wait", started},
            clean_environment({}), in_scratch("first.out"), in_scratch("first.err"));
        ASSERT_TRUE(wait_until_exists(started)) << read_file(in_scratch("first.err"));
        DriverRun second = run_with_deadline(
            {"--color=never", "--sites", option, shared, FIXTURE_PATH, "args", "ran"},
            in_scratch("out"), in_scratch("err"));
        ::kill(first, SIGTERM);
        wait_exit_code(first);
        EXPECT_EQ(second.exit_code, 1) << second.err;
        EXPECT_EQ(second.out, "") << "the program must not run";
        EXPECT_NE(second.err.find("memusage: cannot use " + shared + " (" + option + "): process "),
                  std::string::npos)
            << second.err;
        EXPECT_NE(second.err.find("is writing it, the collector of another run still going"),
                  std::string::npos)
            << second.err;
        // Once the first run is over, the file is free again.
        DriverRun third =
            run_with_deadline({"--color=never", option, shared, FIXTURE_PATH, "args", "ran"},
                              in_scratch("out"), in_scratch("err"));
        EXPECT_EQ(third.exit_code, 0) << third.err;
        EXPECT_EQ(third.out, "[ran]\n");
    }
}

}  // namespace
}  // namespace driver_test
