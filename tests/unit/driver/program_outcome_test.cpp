// SPDX-License-Identifier: MIT
#include "program_outcome.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <string>

#include "support/scratch_directory.h"

namespace memusage {
namespace {

TEST(ProgramOutcome, ExitStatusIsTheProgramsOwn) {
    ProgramOutcome outcome = outcome_from_wait_status(42 << 8);
    EXPECT_EQ(outcome.kind, ProgramOutcome::Kind::exited);
    EXPECT_EQ(driver_exit_status(outcome), 42);
    EXPECT_EQ(describe_outcome("prog", outcome), "");
}

TEST(ProgramOutcome, SignalGives128PlusN) {
    ProgramOutcome outcome = outcome_from_wait_status(SIGSEGV);
    EXPECT_EQ(outcome.kind, ProgramOutcome::Kind::killed);
    EXPECT_EQ(driver_exit_status(outcome), 128 + SIGSEGV);
    std::string message = describe_outcome("prog", outcome);
    EXPECT_NE(message.find("signal 11"), std::string::npos) << message;
    EXPECT_NE(message.find("SIGSEGV"), std::string::npos) << message;
}

TEST(ProgramOutcome, CoreDumpIsMentioned) {
    ProgramOutcome outcome = outcome_from_wait_status(SIGABRT | 0x80);
    EXPECT_TRUE(outcome.core_dumped);
    EXPECT_NE(describe_outcome("prog", outcome).find("core dumped"), std::string::npos);
}

TEST(ProgramOutcome, NotRunGives127AndSaysWhy) {
    ProgramOutcome searched{ProgramOutcome::Kind::not_run, ENOENT, false};
    EXPECT_EQ(driver_exit_status(searched), 127);
    EXPECT_EQ(describe_outcome("prog", searched), "memusage: cannot run 'prog': command not found");
    ProgramOutcome denied{ProgramOutcome::Kind::not_run, EACCES, false};
    EXPECT_EQ(describe_outcome("./prog", denied),
              "memusage: cannot run './prog': Permission denied");
}

}  // namespace
}  // namespace memusage

namespace memusage {
namespace {

// exec says ENOENT of a script whose interpreter is missing, though the script exists.
TEST(ProgramOutcome, AMissingInterpreterIsNamed) {
    const test_support::ScratchDirectory scratch("outcome_test");
    const std::string directory = scratch.path();
    const std::string script = std::string(directory) + "/script";
    std::ofstream(script) << "#!/no/such/interpreter -x\necho hi\n";
    ProgramOutcome never_ran{ProgramOutcome::Kind::not_run, ENOENT, false};
    EXPECT_EQ(describe_outcome("./script", never_ran, script),
              "memusage: cannot run './script': its interpreter /no/such/interpreter was not "
              "found");
    // Found through PATH too: the command was found, its interpreter was not.
    EXPECT_EQ(describe_outcome("script", never_ran, script),
              "memusage: cannot run 'script': its interpreter /no/such/interpreter was not "
              "found");
    // A file that is not there is what ENOENT says.
    EXPECT_EQ(describe_outcome("./gone", never_ran, std::string(directory) + "/gone"),
              "memusage: cannot run './gone': No such file or directory");
}

}  // namespace
}  // namespace memusage
