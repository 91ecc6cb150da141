// SPDX-License-Identifier: MIT
// Two runs given the same file name, the collector preloaded by hand: the first run's
// collector holds the file (a lock, as long as its process lives); the second writes none
// of it, and says so, naming the holder, instead of leaving the first run's file to pass
// for its own.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "collector_run.h"

namespace collector_test {
namespace {

// Whether /proc/locks lists a lock taken by `pid`.
bool holds_a_lock(pid_t pid) {
    std::ifstream locks("/proc/locks");
    std::string line;
    std::string needle = " " + std::to_string(pid) + " ";
    while (std::getline(locks, line))
        if (line.find("FLOCK") != std::string::npos && line.find(needle) != std::string::npos)
            return true;
    return false;
}

// `sleep` with our collector preloaded and `setting`, left running (its own process group).
pid_t start_holder(const std::string& setting) {
    std::vector<std::string> env = {"LD_PRELOAD=" + kOurCollector, "PATH=/usr/bin:/bin",
                                    "MEMUSAGE_NO_TIMER=1", setting};
    std::vector<char*> env_pointers;
    for (std::string& e : env) env_pointers.push_back(e.data());
    env_pointers.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        char sleep[] = "/bin/sleep", seconds[] = "60";
        char* argv[] = {sleep, seconds, nullptr};
        execve(argv[0], argv, env_pointers.data());
        _exit(127);
    }
    return pid;
}

TEST(HeldFiles, ASecondRunSaysWhoHoldsTheFileAndWritesNone) {
    struct Output {
        const char* variable;
        const char* what;  // as the warning names it
    };
    for (Output output :
         {Output{"MEMUSAGE_SITES", "allocation sites file"}, Output{"MEMUSAGE_OUTPUT", "data file"},
          Output{"MEMUSAGE_EVENTS", "events file"},
          Output{"MEMUSAGE_SUMMARY_FILE", "summary file"}}) {
        SCOPED_TRACE(output.variable);
        Scratch scratch;
        std::string file = scratch / "shared";
        std::string setting = std::string(output.variable) + "=" + file;
        pid_t holder = start_holder(setting);
        ASSERT_GT(holder, 0);
        bool held = false;
        for (int tenths = 0; tenths < 100 && !held; ++tenths) {
            held = holds_a_lock(holder);
            if (!held) usleep(100000);
        }
        Outcome second =
            held ? run({fixture("collector_fixture_calls")}, {setting, "MEMUSAGE_COLOR=never"})
                 : Outcome{};
        kill(holder, SIGKILL);
        waitpid(holder, nullptr, 0);
        ASSERT_TRUE(held) << "the first run never locked its file";
        ASSERT_TRUE(second.exited_zero()) << second.err;
        std::string said = "memusage: cannot write the " + std::string(output.what) + " " + file +
                           ": process " + std::to_string(holder) + " is writing it\n";
        EXPECT_NE(second.err.find(said), std::string::npos) << second.err;
        EXPECT_EQ(count_summaries(second.err), 1) << second.err;
    }
}

// A process the holder started (a child, or the image it exec'd into) leaves the file to it,
// or takes it over, without a word: the same run. So do siblings of one run writing the
// data file at once: the later finds it written since the run began.
TEST(HeldFiles, ProcessesOfTheHoldersRunSayNothing) {
    Scratch scratch;
    std::vector<std::string> env = {
        "MEMUSAGE_SITES=" + (scratch / "sites"), "MEMUSAGE_OUTPUT=" + (scratch / "data"),
        "MEMUSAGE_EVENTS=" + (scratch / "events"), "MEMUSAGE_SUMMARY_FILE=" + (scratch / "summary"),
        "MEMUSAGE_COLOR=never"};
    for (const char* mode : {"fork", "in_place"}) {
        SCOPED_TRACE(mode);
        Outcome outcome = run({fixture("collector_fixture_exec_self"), mode}, env);
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
        EXPECT_EQ(outcome.err.find("cannot write"), std::string::npos) << outcome.err;
    }
    std::string program = "'" + fixture("collector_fixture_crashing") + "' exit 3";
    Outcome siblings = run({"/bin/sh", "-c", program + " & " + program + "; wait"},
                           {"MEMUSAGE_PROG_NAME=collector_fixture_crashing",
                            "MEMUSAGE_OUTPUT=" + (scratch / "siblings"), "MEMUSAGE_COLOR=never"});
    ASSERT_TRUE(siblings.exited_zero()) << siblings.err;
    EXPECT_EQ(count_summaries(siblings.err), 2) << siblings.err;
    EXPECT_EQ(siblings.err.find("cannot write"), std::string::npos) << siblings.err;
}

}  // namespace
}  // namespace collector_test
