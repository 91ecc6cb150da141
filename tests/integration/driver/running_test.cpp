// SPDX-License-Identifier: MIT
// The driver runs the program: arguments, exit statuses, signals, PATH, failures to start.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "driver_run.h"
#include "scratch_directory.h"

namespace driver_test {
namespace {

using RunningTest = ScratchDirectoryTest;

// The commit of the sources as git says it.
std::string sources_commit() {
    auto read = [](const std::string& command) {
        std::string text;
        if (FILE* pipe = ::popen(command.c_str(), "r")) {
            char buffer[256];
            while (std::fgets(buffer, sizeof buffer, pipe)) text += buffer;
            ::pclose(pipe);
        }
        return text;
    };
    const std::string git = "git -C '" PROJECT_SOURCE_PATH "' ";
    std::string commit = read(git + "rev-parse --short=12 HEAD 2>/dev/null");
    if (commit.empty()) return "unknown";
    commit.pop_back();  // the newline
    return commit;
}

TEST_F(RunningTest, ExitStatusIsTheProgramsOwn) {
    for (int status : {0, 3, 255}) {
        DriverRun run = run_driver({FIXTURE_PATH, "exit", std::to_string(status)}, scratch());
        EXPECT_EQ(run.exit_code, status) << run.err;
    }
}

TEST_F(RunningTest, SignalDeathGives128PlusNAndSaysWhich) {
    for (int signal_number : {SIGSEGV, SIGABRT, SIGKILL, SIGUSR1}) {
        DriverRun run =
            run_driver({FIXTURE_PATH, "signal", std::to_string(signal_number)}, scratch());
        EXPECT_EQ(run.exit_code, 128 + signal_number) << run.err;
        EXPECT_NE(run.err.find("signal " + std::to_string(signal_number)), std::string::npos)
            << run.err;
    }
}

TEST_F(RunningTest, ProgramArgumentsArriveUntouched) {
    DriverRun run = run_driver(
        {"-m", FIXTURE_PATH, "args", "-p", "x", "--help", "--", "two words", "", "-n"}, scratch());
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "[-p]\n[x]\n[--help]\n[--]\n[two words]\n[]\n[-n]\n");
}

TEST_F(RunningTest, DoubleDashLetsTheProgramStartWithADash) {
    std::string dash_name = in_scratch("-fixture");
    std::filesystem::copy_file(FIXTURE_PATH, dash_name);
    ::chmod(dash_name.c_str(), 0755);
    DriverRun run =
        run_driver({"--", "-fixture", "exit", "4"}, scratch(), {"PATH=" + scratch() + ":/bin"});
    EXPECT_EQ(run.exit_code, 4) << run.err;
}

TEST_F(RunningTest, FindsTheProgramThroughPath) {
    std::string directory = std::filesystem::path(FIXTURE_PATH).parent_path().string();
    DriverRun run = run_driver({"driver_fixture", "exit", "7"}, scratch(),
                               {"PATH=/nonexistent:" + directory + ":/usr/bin:/bin"});
    EXPECT_EQ(run.exit_code, 7) << run.err;
}

TEST_F(RunningTest, ProgramNotFoundGives127) {
    DriverRun run = run_driver({"memusage-no-such-program", "a"}, scratch());
    EXPECT_EQ(run.exit_code, 127);
    EXPECT_NE(run.err.find("memusage-no-such-program"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("not found"), std::string::npos) << run.err;
}

TEST_F(RunningTest, ProgramNotExecutableGives127) {
    std::string plain = in_scratch("plain-file");
    std::ofstream(plain) << "not a program\n";
    DriverRun run = run_driver({plain}, scratch());
    EXPECT_EQ(run.exit_code, 127);
    EXPECT_NE(run.err.find("Permission denied"), std::string::npos) << run.err;
}

TEST_F(RunningTest, ScriptWithoutInterpreterLineRunsThroughTheShell) {
    std::string script = in_scratch("script");
    std::ofstream(script) << "exit 5\n";
    ::chmod(script.c_str(), 0755);
    DriverRun run = run_driver({script}, scratch());
    EXPECT_EQ(run.exit_code, 5) << run.err;
}

// exec says "No such file or directory" of a program that is there when what should run it
// is missing: the message names that, for a script found through PATH as for one named by
// its path, and for a compiled program whose dynamic loader this machine lacks.
TEST_F(RunningTest, AMissingInterpreterIsNamed) {
    const std::string path = "PATH=" + scratch() + ":/usr/bin:/bin";
    std::string script = in_scratch("lost-script");
    std::ofstream(script) << "#!/no/such/shell -e\nexit 0\n";
    ::chmod(script.c_str(), 0755);
    for (const std::string& program : {script, std::string("lost-script")}) {
        DriverRun run = run_driver({program}, scratch(), {path});
        EXPECT_EQ(run.exit_code, 127);
        EXPECT_EQ(run.err, "memusage: cannot run '" + program +
                               "': its interpreter /no/such/shell was not found\n");
    }
    // Windows line ends: the kernel looks for "/bin/sh\r".
    std::string windows = in_scratch("windows-script");
    std::ofstream(windows) << "#!/bin/sh\r\nexit 0\r\n";
    ::chmod(windows.c_str(), 0755);
    DriverRun crlf = run_driver({"windows-script"}, scratch(), {path});
    EXPECT_EQ(crlf.exit_code, 127);
    EXPECT_NE(crlf.err.find("its interpreter is /bin/sh followed by a carriage return"),
              std::string::npos)
        << crlf.err;
    // The fixture, its loader's name changed to one no machine has: /lib64/ld-linux-x86-64.so.2
    // becomes /lib64/no-linux-x86-64.so.2.
    std::string program = in_scratch("foreign-program");
    std::string bytes = read_file(FIXTURE_PATH);
    const size_t at = bytes.find("/ld-");
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at + 1, 2, "no");
    const size_t start = bytes.rfind('\0', at) + 1;
    const std::string foreign = bytes.substr(start, bytes.find('\0', at) - start);
    std::ofstream(program, std::ios::binary) << bytes;
    ::chmod(program.c_str(), 0755);
    DriverRun elf = run_driver({program}, scratch());
    EXPECT_EQ(elf.exit_code, 127);
    EXPECT_EQ(elf.err, "memusage: cannot run '" + program +
                           "': the dynamic loader it was built for, " + foreign +
                           ", is not on this machine\n");
}

// The prefixes glibc's script takes for one of its options mean that option, though options
// of this driver share them: the run shows it.
TEST_F(RunningTest, GlibcsShortestPrefixesMeanItsOptions) {
    DriverRun mmap = run_driver({"--color=never", "--m", FIXTURE_PATH, "exit", "0"}, scratch());
    EXPECT_EQ(mmap.exit_code, 0) << mmap.err;
    EXPECT_NE(mmap.err.find("mmap(r)|"), std::string::npos) << "--m is --mmap\n" << mmap.err;
    const std::string data = in_scratch("run.dat");
    DriverRun kept = run_driver({"--d=" + data, FIXTURE_PATH, "exit", "0"}, scratch());
    EXPECT_EQ(kept.exit_code, 0) << kept.err;
    EXPECT_TRUE(std::filesystem::exists(data)) << "--d is --data\n" << kept.err;
    DriverRun help = run_driver({"--h"}, scratch());
    EXPECT_EQ(help.exit_code, 0) << help.err;
    EXPECT_TRUE(help.out.starts_with("Usage: memusage")) << "--h is --help\n" << help.out;
    // Options of this driver keep the prefixes glibc's leave them.
    DriverRun html =
        run_driver({"--ht=" + in_scratch("r.html"), FIXTURE_PATH, "exit", "0"}, scratch());
    EXPECT_EQ(html.exit_code, 0) << html.err;
    EXPECT_TRUE(std::filesystem::exists(in_scratch("r.html"))) << html.err;
}

// --help, --usage and --version fail when standard output cannot take their text.
TEST_F(RunningTest, HelpThatCannotBeWrittenFails) {
    for (const char* option : {"--help", "--usage", "--version"}) {
        pid_t pid = start(MEMUSAGE_DRIVER_PATH, {option}, clean_environment({}), "/dev/full",
                          in_scratch("err"));
        EXPECT_EQ(wait_exit_code(pid), 1) << option;
        EXPECT_EQ(read_file(in_scratch("err")),
                  "memusage: cannot write standard output: No space left on device\n")
            << option;
    }
}

TEST_F(RunningTest, CommandLineErrorsGiveOneAndAPointerToHelp) {
    for (const auto& arguments : std::vector<std::vector<std::string>>{
             {}, {"--frobnicate", FIXTURE_PATH}, {"--p", "x", FIXTURE_PATH}, {"-x"}}) {
        DriverRun run = run_driver(arguments, scratch());
        EXPECT_EQ(run.exit_code, 1);
        EXPECT_NE(run.err.find("Try 'memusage --help' or 'memusage --usage' for more information."),
                  std::string::npos)
            << run.err;
    }
    EXPECT_NE(run_driver({}, scratch()).err.find("No program name given"), std::string::npos);
}

TEST_F(RunningTest, HelpUsageVersionPrintAndSucceed) {
    DriverRun help = run_driver({"--help"}, scratch());
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_TRUE(help.out.starts_with("Usage: memusage [OPTION]... PROGRAM [PROGRAMOPTION]..."));
    for (const char* option : {"--progname", "--png", "--data", "--unbuffered", "--buffer",
                               "--no-timer", "--mmap", "--color", "--time-based", "--total",
                               "--title", "--x-size", "--y-size", "--usage", "--version"}) {
        EXPECT_NE(help.out.find(option), std::string::npos) << option;
    }
    DriverRun usage = run_driver({"--usage"}, scratch());
    EXPECT_EQ(usage.exit_code, 0);
    EXPECT_NE(usage.out.find("PROGRAM [PROGRAMOPTION]..."), std::string::npos);
    DriverRun version = run_driver({"-V"}, scratch());
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_EQ(version.out.substr(0, version.out.find('\n')),
              "memusage (memusage) " PROJECT_VERSION " (commit " + sources_commit() + ")");
}

TEST_F(RunningTest, KeepsTheUsersPreloadAndSetsTheVariables) {
    DriverRun run = run_driver(
        {"-n", "someone", "--color=never", "-b", "64", FIXTURE_PATH, "env", "LD_PRELOAD"},
        scratch(),
        // The preload reaches the driver too: a sanitized driver must
        // accept a library loaded before its runtime.
        {"LD_PRELOAD=libm.so.6", "ASAN_OPTIONS=verify_asan_link_order=0"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(run.out.find("libmemusage.so:libm.so.6") != std::string::npos) << run.out;
    run = run_driver({"--color=never", FIXTURE_PATH, "env", "MEMUSAGE_COLOR"}, scratch());
    EXPECT_EQ(run.out, "never\n");
}

// Starts the driver on a fixture that waits, sends the driver signal_number, and checks the
// program got it: the driver reports 128+N once the program died of it.
void expect_signal_reaches_program(const std::string& scratch, int signal_number,
                                   const std::vector<std::string>& options) {
    std::string started = scratch + "/started";
    std::vector<std::string> arguments = options;
    arguments.insert(arguments.end(), {FIXTURE_PATH, "wait", started});
    pid_t driver = start(MEMUSAGE_DRIVER_PATH, arguments, clean_environment({}), scratch + "/out",
                         scratch + "/err");
    ASSERT_TRUE(wait_until_exists(started)) << read_file(scratch + "/err");
    ::kill(driver, signal_number);
    EXPECT_EQ(wait_exit_code(driver), 128 + signal_number) << read_file(scratch + "/err");
}

TEST_F(RunningTest, TerminationSignalsReachTheProgram) {
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        SCOPED_TRACE(signal_number);
        std::filesystem::remove(in_scratch("started"));
        expect_signal_reaches_program(scratch(), signal_number, {});
    }
}

}  // namespace
}  // namespace driver_test
