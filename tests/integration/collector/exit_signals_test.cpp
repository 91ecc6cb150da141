// SPDX-License-Identifier: MIT
// The collector's own writes never signal the program: a summary written to a pipe whose
// reader has left (SIGPIPE), a data file grown past the file size limit (SIGXFSZ). The
// program runs on and exits as it would have, its standard output flushed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "collector_run.h"

namespace collector_test {
namespace {

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Spawn {
    std::vector<std::string> argv;
    std::vector<std::string> env;
    std::string out_path;  // standard output
    std::string err_path;  // standard error; empty: a pipe whose reader has left
    rlim_t file_limit = RLIM_INFINITY;
    // Given, standard error goes through a pipe into it instead (a file size limit does not
    // apply to pipes). At most a pipe's worth: read once the program has ended.
    std::string* err_text = nullptr;
};

// The raw wait status of `spawn` run with our collector preloaded.
int run_spawn(const Spawn& spawn) {
    std::vector<std::string> args = spawn.argv;
    if (built_for_another_machine(args.front())) {
        std::istringstream words(from_environment("MEMUSAGE_TEST_EMULATOR", ""));
        std::vector<std::string> emulator{std::istream_iterator<std::string>(words), {}};
        args.insert(args.begin(), emulator.begin(), emulator.end());
    }
    std::vector<std::string> env = {"LD_PRELOAD=" + kOurCollector, "PATH=/usr/bin:/bin",
                                    "MEMUSAGE_COLOR=never"};
    env.insert(env.end(), spawn.env.begin(), spawn.env.end());
    int err_pipe[2] = {-1, -1};
    if (spawn.err_text != nullptr && pipe(err_pipe) != 0) return -1;
    std::vector<char*> arg_pointers, env_pointers;
    for (std::string& a : args) arg_pointers.push_back(a.data());
    for (std::string& e : env) env_pointers.push_back(e.data());
    arg_pointers.push_back(nullptr);
    env_pointers.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(spawn.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(out, 1);
        if (spawn.err_text != nullptr) {
            close(err_pipe[0]);
            dup2(err_pipe[1], 2);
        } else if (spawn.err_path.empty()) {
            int ends[2];
            if (pipe(ends) != 0) _exit(126);
            close(ends[0]);  // the reader has left
            dup2(ends[1], 2);
        } else {
            dup2(open(spawn.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), 2);
        }
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        rlimit file = {spawn.file_limit, spawn.file_limit};
        setrlimit(RLIMIT_FSIZE, &file);
        execve(arg_pointers[0], arg_pointers.data(), env_pointers.data());
        _exit(127);
    }
    int status = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (spawn.err_text != nullptr) {
        close(err_pipe[1]);
        spawn.err_text->clear();
        char buffer[4096];
        for (ssize_t n; (n = read(err_pipe[0], buffer, sizeof buffer)) > 0;)
            spawn.err_text->append(buffer, static_cast<size_t>(n));
        close(err_pipe[0]);
    }
    return status;
}

TEST(ExitSignals, ASummaryToAPipeWithoutReaderLeavesTheProgramsOutput) {
    Scratch scratch;
    Spawn spawn;
    spawn.argv = {fixture("collector_fixture_stdout_lines")};
    spawn.out_path = scratch / "out";
    int status = run_spawn(spawn);
    EXPECT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    std::string out = contents(scratch / "out");
    EXPECT_NE(out.find("line 0\n"), std::string::npos) << out;
    EXPECT_NE(out.find("done\n"), std::string::npos) << out;
}

TEST(ExitSignals, AFileSizeLimitStopsTheDataFileNotTheProgram) {
    Scratch scratch;
    constexpr rlim_t kLimit = 48 * 1024;
    Spawn spawn;
    spawn.argv = {fixture("collector_fixture_stdout_lines"), "20000"};
    spawn.env = {"MEMUSAGE_OUTPUT=" + (scratch / "data"), "MEMUSAGE_BUFFER_SIZE=100",
                 "MEMUSAGE_NO_TIMER=1"};
    spawn.out_path = scratch / "out";
    spawn.err_path = scratch / "err";
    spawn.file_limit = kLimit;
    int status = run_spawn(spawn);
    std::string err = contents(scratch / "err");
    EXPECT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << err;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << err;
    EXPECT_NE(contents(scratch / "out").find("done\n"), std::string::npos);
    // One warning that the file is incomplete, then the summary.
    size_t warning = err.find("cannot write the data file");
    ASSERT_NE(warning, std::string::npos) << err;
    EXPECT_EQ(err.find("cannot write the data file", warning + 1), std::string::npos) << err;
    EXPECT_NE(err.find("File too large"), std::string::npos) << err;
    EXPECT_GE(parse_summary(err).row("malloc").calls, 20000u) << err;
    struct stat st;
    ASSERT_EQ(stat((scratch / "data").c_str(), &st), 0);
    EXPECT_LE(static_cast<rlim_t>(st.st_size), kLimit);
    EXPECT_EQ(st.st_size % 24, 0) << "whole records only";
}

// The files written at exit (the sites, the summary's figures) and the event recording
// under a file size limit of half what each takes: one warning with the reason, and the
// program runs to its end. The limit is learnt from a run without one.
TEST(ExitSignals, AFileSizeLimitStopsEachOutputFileNotTheProgram) {
    struct Output {
        const char* variable;
        const char* what;  // as the warning names it
    };
    for (Output output : {Output{"MEMUSAGE_SITES", "allocation sites file"},
                          Output{"MEMUSAGE_EVENTS", "events file"},
                          Output{"MEMUSAGE_SUMMARY_FILE", "summary file"}}) {
        SCOPED_TRACE(output.variable);
        Scratch scratch;
        std::string file = scratch / "file";
        Spawn spawn;
        spawn.argv = {fixture("collector_fixture_stdout_lines"), "2000"};
        spawn.env = {std::string(output.variable) + "=" + file, "MEMUSAGE_NO_TIMER=1"};
        spawn.out_path = scratch / "out";
        std::string err;
        spawn.err_text = &err;
        ASSERT_EQ(run_spawn(spawn), 0) << err;
        std::string out = contents(scratch / "out");
        struct stat st;
        ASSERT_EQ(stat(file.c_str(), &st), 0);
        ASSERT_GT(st.st_size / 2, static_cast<off_t>(out.size()))
            << "the limit must stop the file, not the program's output";

        spawn.file_limit = static_cast<rlim_t>(st.st_size / 2);
        int status = run_spawn(spawn);
        EXPECT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << err;
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << err;
        EXPECT_EQ(contents(scratch / "out"), out);
        EXPECT_NE(out.find("done\n"), std::string::npos) << out;
        std::string said = "memusage: cannot write the " + std::string(output.what) + " " + file +
                           ": File too large";
        size_t at = err.find(said);
        EXPECT_NE(at, std::string::npos) << err;
        EXPECT_EQ(err.find("cannot write", at == std::string::npos ? 0 : at + said.size()),
                  std::string::npos)
            << "said once\n"
            << err;
        EXPECT_GE(parse_summary(err).row("malloc").calls, 1u) << err;
        ASSERT_EQ(stat(file.c_str(), &st), 0);
        EXPECT_LE(static_cast<rlim_t>(st.st_size), spawn.file_limit);
    }
}

}  // namespace
}  // namespace collector_test
