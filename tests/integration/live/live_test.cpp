// SPDX-License-Identifier: MIT
// The live figures end to end: the collector publishes, and memusage --live, --watch and
// --ps show them, driven in a tmux pane (tmux_pane.h) on live_fixture.c, whose heap the
// test steps through with files.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "memusage/live_format.h"
#include "support/scratch_directory.h"
#include "tmux_pane.h"

namespace {

using live_test::shell_output;
using live_test::TmuxPane;

// A shell command's first words: this build's, or a board's run under qemu-user
// (tests/cross/run.sh sets these for the tests that start the view in a pane).
std::string command_or(const char* variable, const char* built) {
    const char* command = getenv(variable);
    return command != nullptr && *command != '\0' ? command : built;
}
const std::string kDriver = command_or("MEMUSAGE_TEST_LIVE_DRIVER", MEMUSAGE_DRIVER_PATH);
const std::string kFixture = command_or("MEMUSAGE_TEST_LIVE_FIXTURE", LIVE_FIXTURE_PATH);

class Scratch {
  public:
    const std::string& path() const { return directory_.path(); }
    std::string file(const std::string& name) const { return directory_.file(name); }
    void touch(const std::string& name) const { std::ofstream(file(name)) << "go\n"; }
    // Waits for the fixture's file `name`; its content (the fixture's pid), or -1.
    long wait_for(const std::string& name) const {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < deadline) {
            std::ifstream in(file(name));
            long pid = -1;
            if (in >> pid) return pid;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }

  private:
    test_support::ScratchDirectory directory_{"memusage-live-test"};
};

// Where the collector puts a process's live figures: $XDG_RUNTIME_DIR/memusage when that
// is a directory of the user's own closed to others, else /dev/shm/memusage-UID.
std::string figures_file(long pid) {
    const char* runtime = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    bool usable = runtime != nullptr && runtime[0] == '/' && stat(runtime, &st) == 0 &&
                  S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
    std::string directory = usable ? std::string(runtime) + "/memusage"
                                   : "/dev/shm/memusage-" + std::to_string(geteuid());
    return directory + "/" + std::to_string(pid);
}

bool process_exists(long pid) { return kill(static_cast<pid_t>(pid), 0) == 0; }

// A program under the collector, in the background, through the driver (no view): `program`
// and its arguments, with MEMUSAGE_LIVE set to `live` (nullptr: unset, as a plain run).
pid_t start_profiled(const Scratch& scratch, const std::vector<std::string>& program,
                     const char* live = "1", const std::vector<std::string>& options = {}) {
    pid_t driver = fork();
    if (driver == 0) {
        // A runner started with some of these ignored (nohup, a background job) would pass
        // that on, and the program would not end by them.
        for (int signal_number : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE})
            signal(signal_number, SIG_DFL);
        struct rlimit no_core = {0, 0};  // SIGQUIT's death writes none
        setrlimit(RLIMIT_CORE, &no_core);
        if (live != nullptr)
            setenv("MEMUSAGE_LIVE", live, 1);
        else
            unsetenv("MEMUSAGE_LIVE");
        freopen("/dev/null", "w", stdout);
        freopen(scratch.file("summary").c_str(), "w", stderr);
        std::vector<char*> arguments{const_cast<char*>("memusage")};
        for (const std::string& option : options)
            arguments.push_back(const_cast<char*>(option.c_str()));
        for (const std::string& word : program)
            arguments.push_back(const_cast<char*>(word.c_str()));
        arguments.push_back(nullptr);
        execv(kDriver.c_str(), arguments.data());
        _exit(127);
    }
    return driver;
}

int wait_exit(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// The --ps line of `pid`, or empty.
std::string ps_line(const std::string& table, long pid) {
    std::string wanted = std::to_string(pid);
    size_t start = 0;
    while (start < table.size()) {
        size_t end = table.find('\n', start);
        std::string line = table.substr(start, end - start);
        size_t first = line.find_first_not_of(' ');
        if (first != std::string::npos && line.compare(first, wanted.size() + 1, wanted + " ") == 0)
            return line;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return {};
}

TEST(LiveView, ShowsTheHeapStepByStepAndQuittingLeavesTheProgramAndItsSummary) {
    Scratch scratch;
    TmuxPane pane(kDriver + " --live " + kFixture + " " + scratch.path());
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    std::string screen;
    ASSERT_TRUE(pane.wait_for("live_fixture (pid " + std::to_string(pid) + ")", screen)) << screen;

    scratch.touch("step1");
    ASSERT_GT(scratch.wait_for("done1"), 0);
    EXPECT_TRUE(pane.wait_for("heap now          1048576 bytes", screen)) << screen;
    scratch.touch("step2");
    ASSERT_GT(scratch.wait_for("done2"), 0);
    EXPECT_TRUE(pane.wait_for("heap now          3145728 bytes", screen)) << screen;
    EXPECT_NE(screen.find("heap peak         3145728 bytes"), std::string::npos) << screen;
    // The main thread's row holds it all.
    EXPECT_TRUE(pane.wait_for(std::to_string(pid) + "  live_fixture              3145728", screen))
        << screen;
    // 80x24: no line wider, none beyond the 24th.
    size_t lines = 0;
    for (size_t start = 0; start < screen.size(); ++lines) {
        size_t end = screen.find('\n', start);
        if (end == std::string::npos) end = screen.size();
        std::string line = screen.substr(start, end - start);
        size_t columns = 0;
        for (char c : line) columns += (c & 0xC0) != 0x80;
        EXPECT_LE(columns, 80u) << line;
        start = end + 1;
    }
    EXPECT_LE(lines, 24u);

    pane.send_keys("q");
    // The view goes (the terminal's screen is given back); the program stays.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pane.screen().find("keys: s sort") != std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(pane.screen().find("keys: s sort"), std::string::npos) << "q closes the view";
    EXPECT_TRUE(process_exists(pid)) << "quitting the view must leave the program running";
    scratch.touch("step3");
    EXPECT_GT(scratch.wait_for("done3"), 0) << "the program runs on after the view";
    scratch.touch("quit");
    ASSERT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
    // 1 + 2 + 3 MiB at the peak, and the fixture's stdio buffers.
    EXPECT_NE(screen.find("heap peak: 6291456"), std::string::npos) << screen;
    EXPECT_FALSE(std::filesystem::exists(figures_file(pid))) << "the file goes at exit";
}

// A /bin/sh script in `scratch` that writes its pid to DIR/shell, waits for a line in the
// FIFO DIR/go, then starts the fixture on DIR with `start` before it: "exec " (its pid
// kept, with `env -u VARIABLE` to run it without one), or nothing (as its child).
std::string wrapper(const Scratch& scratch, const std::string& start) {
    EXPECT_EQ(mkfifo(scratch.file("go").c_str(), 0600), 0);
    std::ofstream(scratch.file("wrapper"))
        << "echo $$ > " << scratch.file("shell") << "\nread line < " << scratch.file("go") << "\n"
        << start << kFixture << " " << scratch.path() << "\n";
    return scratch.file("wrapper");
}

// The fixture's first step, a mebibyte allocated, seen in the view `pane`.
void expect_the_first_step_in_view(const Scratch& scratch, TmuxPane& pane, std::string& screen) {
    scratch.touch("step1");
    ASSERT_GT(scratch.wait_for("done1"), 0);
    EXPECT_TRUE(pane.wait_for("heap now          1048576 bytes", screen)) << screen;
}

// A wrapper that execs the real program, as version managers' shims do: the view, on the
// wrapper first, follows the pid to the program and says so.
TEST(LiveView, FollowsTheProgramThatReplacesTheWatchedOneByExec) {
    Scratch scratch;
    TmuxPane pane(kDriver + " --live /bin/sh " + wrapper(scratch, "exec "));
    std::string screen;
    ASSERT_TRUE(pane.wait_for("memusage: sh (pid ", screen)) << screen;
    // The wrapper goes on: it waits in the FIFO's open until this end opens too.
    std::ofstream(scratch.file("go")) << "go\n";
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(pane.wait_for("memusage: live_fixture (pid " + std::to_string(pid) + ")", screen))
        << screen;
    EXPECT_NE(screen.find("now: live_fixture (exec, was sh)"), std::string::npos) << screen;
    expect_the_first_step_in_view(scratch, pane, screen);
    for (const char* name : {"step2", "step3", "quit"}) scratch.touch(name);
    ASSERT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
}

// A wrapper that execs the program with another XDG_RUNTIME_DIR: the program publishes in
// the other directory of the user's live figures, and the view finds it there.
TEST(LiveView, FollowsTheProgramThatReplacesTheWatchedOneByExecIntoAnotherDirectory) {
    Scratch scratch;
    // The scratch directory is the user's own, closed to others: a runtime directory.
    TmuxPane pane("XDG_RUNTIME_DIR=" + scratch.path() + " " + kDriver + " --live /bin/sh " +
                  wrapper(scratch, "exec env -u XDG_RUNTIME_DIR "));
    std::string screen;
    ASSERT_TRUE(pane.wait_for("memusage: sh (pid ", screen)) << screen;
    EXPECT_TRUE(std::filesystem::exists(scratch.file("memusage"))) << "sh publishes there";
    std::ofstream(scratch.file("go")) << "go\n";
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(pane.wait_for("now: live_fixture (exec, was sh)", screen)) << screen;
    expect_the_first_step_in_view(scratch, pane, screen);
    for (const char* name : {"step2", "step3", "quit"}) scratch.touch(name);
    ASSERT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
}

// A wrapper that execs the program without the collector (LD_PRELOAD unset): the view, on
// the wrapper first, says the program now running publishes nothing, and shows none of the
// wrapper's figures as if they were its.
TEST(LiveView, SaysWhenTheProgramThatReplacesTheWatchedOneByExecIsNotProfiled) {
    Scratch scratch;
    TmuxPane pane(kDriver + " --live /bin/sh " + wrapper(scratch, "exec env -u LD_PRELOAD "));
    std::string screen;
    ASSERT_TRUE(pane.wait_for("memusage: sh (pid ", screen)) << screen;
    EXPECT_TRUE(pane.wait_for("heap now ", screen)) << screen;
    std::ofstream(scratch.file("go")) << "go\n";
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(pane.wait_for("now: live_fixture (exec, not profiled)", screen)) << screen;
    EXPECT_NE(screen.find("memusage: live_fixture (pid " + std::to_string(pid) + ")"),
              std::string::npos)
        << screen;
    EXPECT_NE(screen.find("no live figures: the program it exec'd publishes none"),
              std::string::npos)
        << screen;
    EXPECT_EQ(screen.find("heap now "), std::string::npos) << screen;
    for (const char* name : {"step1", "step2", "step3", "quit"}) scratch.touch(name);
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=", screen)) << screen;
}

TEST(LiveView, WatchFollowsTheProgramThatReplacesTheWatchedOneByExec) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {"/bin/sh", wrapper(scratch, "exec ")});
    long shell = scratch.wait_for("shell");
    ASSERT_GT(shell, 0);
    TmuxPane pane(kDriver + " --watch=" + std::to_string(shell));
    std::string screen;
    ASSERT_TRUE(pane.wait_for("memusage: sh (pid " + std::to_string(shell) + ")", screen))
        << screen;
    std::ofstream(scratch.file("go")) << "go\n";
    ASSERT_EQ(scratch.wait_for("ready"), shell) << "exec keeps the pid";
    expect_the_first_step_in_view(scratch, pane, screen);
    EXPECT_NE(screen.find("memusage: live_fixture (pid " + std::to_string(shell) + ")"),
              std::string::npos)
        << screen;
    EXPECT_NE(screen.find("now: live_fixture (exec, was sh)"), std::string::npos) << screen;
    for (const char* name : {"step2", "step3", "quit"}) scratch.touch(name);
    EXPECT_EQ(wait_exit(driver), 0);
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
}

TEST(ProcessList, ListsAChildStartedByForkAndExecNextToItsParent) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {"/bin/sh", wrapper(scratch, "")});
    long shell = scratch.wait_for("shell");
    ASSERT_GT(shell, 0);
    std::ofstream(scratch.file("go")) << "go\n";
    long child = scratch.wait_for("ready");
    ASSERT_GT(child, 0);
    EXPECT_NE(child, shell);
    std::string table;
    for (int attempt = 0; attempt < 100; ++attempt) {
        table = shell_output(kDriver + " --ps");
        if (!ps_line(table, child).empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(ps_line(table, shell).find(" sh "), std::string::npos) << table;
    EXPECT_NE(ps_line(table, child).find(" live_fixture "), std::string::npos) << table;
    for (const char* name : {"step1", "step2", "step3", "quit"}) scratch.touch(name);
    EXPECT_EQ(wait_exit(driver), 0);
}

// The line of sites_fixture.c marked `// site: NAME`, as the sites report writes it.
std::string fixture_location(const std::string& marker) {
    std::ifstream source(SITES_FIXTURE_SOURCE);
    std::string line;
    for (int number = 1; std::getline(source, line); ++number)
        if (line.find("// site: " + marker) != std::string::npos)
            return "sites_fixture.c:" + std::to_string(number);
    return "(no line marked " + marker + ")";
}

// A row of the sites table: bytes held, blocks, the site's name.
std::string site_row(uint64_t bytes, uint64_t blocks, const std::string& name) {
    char row[256];
    snprintf(row, sizeof row, "%16llu %10llu  %s", static_cast<unsigned long long>(bytes),
             static_cast<unsigned long long>(blocks), name.c_str());
    return std::string(row).substr(std::string(row).find_first_not_of(' '));
}

TEST(LiveView, WithSitesShowsTheTopSitesHeldNowByNameInOrder) {
    Scratch scratch;
    TmuxPane pane(kDriver + " --live --sites " + SITES_FIXTURE_PATH + " " + scratch.path());
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    std::string screen;
    ASSERT_TRUE(pane.wait_for("top sites held now", screen)) << screen;

    scratch.touch("step1");
    ASSERT_GT(scratch.wait_for("done1"), 0);
    const std::string big = "hold_big_buffer (" + fixture_location("big") + ")";
    const std::string small = "hold_small_tables (" + fixture_location("small") + ")";
    const std::string big_row = site_row(3145728, 1, big);
    ASSERT_TRUE(pane.wait_for(site_row(400000, 4, small), screen)) << screen;
    ASSERT_TRUE(pane.wait_for(big_row, screen)) << screen;
    EXPECT_LT(screen.find(big_row), screen.find(site_row(400000, 4, small)))
        << "the most bytes first\n"
        << screen;

    // Step 2: the small tables now hold the most, and come first.
    scratch.touch("step2");
    ASSERT_GT(scratch.wait_for("done2"), 0);
    const std::string small_row = site_row(5400000, 24, small);
    ASSERT_TRUE(pane.wait_for(small_row, screen)) << screen;
    ASSERT_NE(screen.find(big_row), std::string::npos) << screen;
    EXPECT_LT(screen.find(small_row), screen.find(big_row)) << screen;
    // Still 80x24, the threads' table above.
    EXPECT_NE(screen.find(std::to_string(pid) + "  live_sites_fixt"), std::string::npos) << screen;
    size_t lines = 0;
    for (size_t start = 0; start < screen.size(); ++lines) {
        size_t end = screen.find('\n', start);
        if (end == std::string::npos) end = screen.size();
        EXPECT_LE(end - start, 80u) << screen.substr(start, end - start);
        start = end + 1;
    }
    EXPECT_LE(lines, 24u);

    pane.send_keys("q");
    scratch.touch("quit");
    ASSERT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
}

TEST(LiveView, FiftyThreadsEachInTheirRowLargestFirst) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {kFixture, scratch.path(), "50"});
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    TmuxPane pane(kDriver + " --watch=" + std::to_string(pid));
    std::string screen;
    // Thread i holds (i + 1) pages: the 50th 204800 bytes, the 49th 200704, ...
    ASSERT_TRUE(pane.wait_for("threads                51", screen)) << screen;
    EXPECT_TRUE(pane.wait_for("live_fixture               204800", screen)) << screen;
    size_t first = screen.find("204800");
    size_t second = screen.find("200704");
    ASSERT_NE(second, std::string::npos) << screen;
    EXPECT_LT(first, second) << "sorted by bytes held";
    // `s` sorts by peak, then calls, then thread id.
    pane.send_keys("s");
    EXPECT_TRUE(pane.wait_for("sorted by peak", screen)) << screen;
    pane.send_keys("q");
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
    scratch.touch("step1");
    scratch.touch("step2");
    scratch.touch("step3");
    scratch.touch("quit");
    EXPECT_EQ(wait_exit(driver), 0);
}

TEST(LiveView, ColourUnlessNoColorIsSet) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {kFixture, scratch.path(), "0"});
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    for (bool no_color : {false, true}) {
        TmuxPane pane((no_color ? "NO_COLOR=1 " : "") + kDriver +
                      " --watch=" + std::to_string(pid));
        std::string screen;
        ASSERT_TRUE(pane.wait_for("heap now", screen)) << screen;
        std::string drawn = pane.screen_with_attributes();
        // The title in green and the heap's course in red (SGR 32 and 31), or neither.
        bool coloured =
            drawn.find("32m") != std::string::npos && drawn.find("31m") != std::string::npos;
        EXPECT_EQ(coloured, !no_color) << drawn;
        pane.send_keys("q");
        EXPECT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
    }
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(driver), 0);
}

// A number the view's screen shows after `label` ("elapsed " M:SS or H:MM:SS, in seconds;
// "heap, last " N), or -1.
long shown_number(const std::string& screen, const std::string& label) {
    size_t at = screen.find(label);
    if (at == std::string::npos) return -1;
    long value = 0;
    bool digits = false;
    for (size_t i = at + label.size(); i < screen.size(); ++i) {
        char c = screen[i];
        if (c >= '0' && c <= '9') {
            value = value * 10 + (c - '0');
            digits = true;
        } else if (c == ':' && digits) {
            value *= 60;  // minutes or hours: the next field counts in their sixtieths
        } else {
            break;
        }
    }
    return digits ? value : -1;
}

TEST(LiveView, KeysAndResizesAddNoReadingToTheHeapsCourse) {
    Scratch scratch;
    TmuxPane pane(kDriver + " --live " + kFixture + " " + scratch.path());
    ASSERT_GT(scratch.wait_for("ready"), 0);
    std::string screen;
    ASSERT_TRUE(pane.wait_for("heap, last", screen)) << screen;
    // Twenty sorts, each seen drawn, and resizes between, a publication or more apart (the
    // collector publishes five times a second): a reading taken for each would be one more
    // second of the course each time.
    const char* orders[] = {"peak", "calls", "tid", "held"};
    for (int press = 0; press < 20; ++press) {
        pane.send_keys("s");
        ASSERT_TRUE(pane.wait_for(std::string("sorted by ") + orders[press % 4], screen)) << screen;
        if (press % 5 == 4) pane.resize(press % 10 == 4 ? 100 : 80, press % 10 == 4 ? 30 : 24);
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    pane.send_keys("s");
    ASSERT_TRUE(pane.wait_for("sorted by peak", screen)) << screen;
    // One reading a second since the view opened, which is after the program started: the
    // course's seconds never outnumber the elapsed time's, and the one it opened with.
    long elapsed = shown_number(screen, "elapsed ");
    long course = shown_number(screen, "heap, last ");
    ASSERT_GE(elapsed, 0) << screen;
    ASSERT_GT(course, 0) << screen;
    EXPECT_LE(course, elapsed + 1) << screen;

    pane.send_keys("q");
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
}

TEST(ProcessList, ListsRunningProgramsNotFinishedOrKilledOnesAndCleansUpAfterTheKilled) {
    Scratch first, second, killed;
    pid_t first_driver = start_profiled(first, {kFixture, first.path(), "0"});
    pid_t second_driver = start_profiled(second, {kFixture, second.path(), "3"});
    pid_t killed_driver = start_profiled(killed, {kFixture, killed.path(), "0"});
    long first_pid = first.wait_for("ready");
    long second_pid = second.wait_for("ready");
    long killed_pid = killed.wait_for("ready");
    ASSERT_GT(first_pid, 0);
    ASSERT_GT(second_pid, 0);
    ASSERT_GT(killed_pid, 0);
    first.touch("step1");
    ASSERT_GT(first.wait_for("done1"), 0);

    // Published every 200 ms: the step, and the second's threads, show within a few.
    std::string table;
    for (int attempt = 0; attempt < 100; ++attempt) {
        table = shell_output(kDriver + " --ps");
        if (ps_line(table, first_pid).find(" 1048576 ") != std::string::npos &&
            ps_line(table, second_pid).find("live_fixture           4") != std::string::npos)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(table.find("pid  program"), std::string::npos) << table;
    std::string line = ps_line(table, first_pid);
    EXPECT_NE(line.find("live_fixture"), std::string::npos) << table;
    EXPECT_NE(line.find("       1        1048576        1048576"), std::string::npos) << table;
    EXPECT_NE(ps_line(table, second_pid).find("live_fixture           4"), std::string::npos)
        << table;
    EXPECT_NE(ps_line(table, killed_pid), "") << table;

    // Killed: its file stays behind, is seen to be stale, and goes.
    kill(static_cast<pid_t>(killed_pid), SIGKILL);
    wait_exit(killed_driver);
    EXPECT_TRUE(std::filesystem::exists(figures_file(killed_pid)));
    // Finished: its file went with it.
    for (const char* step : {"step1", "step2", "step3", "quit"}) second.touch(step);
    EXPECT_EQ(wait_exit(second_driver), 0);
    EXPECT_FALSE(std::filesystem::exists(figures_file(second_pid)));

    table = shell_output(kDriver + " --ps");
    EXPECT_NE(ps_line(table, first_pid), "") << table;
    EXPECT_EQ(ps_line(table, second_pid), "") << table;
    EXPECT_EQ(ps_line(table, killed_pid), "") << table;
    EXPECT_FALSE(std::filesystem::exists(figures_file(killed_pid))) << "the stale file is removed";

    for (const char* step : {"step2", "step3", "quit"}) first.touch(step);
    EXPECT_EQ(wait_exit(first_driver), 0);
}

// A program started without --live publishes all the same, with no thread of the
// collector's: from its own calls. A step that changes the heap by a mebibyte is copied at
// the end of its call, and stays in the file while the program waits.
TEST(ProcessList, ListsAProgramStartedWithoutLiveWithItsFiguresAndNoThreadOfOurs) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {kFixture, scratch.path()}, nullptr);
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(std::filesystem::exists(figures_file(pid)));
    scratch.touch("step1");
    ASSERT_GT(scratch.wait_for("done1"), 0);
    std::string table;
    for (int attempt = 0; attempt < 100; ++attempt) {
        table = shell_output(kDriver + " --ps");
        if (ps_line(table, pid).find(" 1048576 ") != std::string::npos) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(ps_line(table, pid).find("live_fixture           1"), std::string::npos) << table;
    EXPECT_NE(ps_line(table, pid).find(" 1048576 "), std::string::npos) << table;
    // One thread: the program's own.
    std::string tasks = shell_output("ls /proc/" + std::to_string(pid) + "/task | wc -l");
    EXPECT_EQ(tasks, "1\n");
    for (const char* step : {"step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(driver), 0);
    EXPECT_FALSE(std::filesystem::exists(figures_file(pid))) << "the file goes at exit";
}

// The same under a plain LD_PRELOAD of the collector, without the driver.
TEST(ProcessList, ListsAProgramStartedWithThePreloadedCollectorAlone) {
    Scratch scratch;
    pid_t program = fork();
    if (program == 0) {
        unsetenv("MEMUSAGE_LIVE");
        setenv("LD_PRELOAD", COLLECTOR_PATH, 1);
        freopen("/dev/null", "w", stderr);
        execl(kFixture.c_str(), "live_fixture", scratch.path().c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    scratch.touch("step1");
    ASSERT_GT(scratch.wait_for("done1"), 0);
    std::string table;
    for (int attempt = 0; attempt < 100; ++attempt) {
        table = shell_output(kDriver + " --ps");
        if (ps_line(table, pid).find(" 1048576 ") != std::string::npos) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(ps_line(table, pid).find(" 1048576 "), std::string::npos) << table;
    for (const char* step : {"step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(program), 0);
    EXPECT_FALSE(std::filesystem::exists(figures_file(pid)));
}

TEST(ProcessList, ProgramsStartedWithLiveZeroAreNotListed) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {kFixture, scratch.path()}, "0");
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    EXPECT_FALSE(std::filesystem::exists(figures_file(pid)));
    EXPECT_EQ(ps_line(shell_output(kDriver + " --ps"), pid), "");
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(driver), 0);
}

// The signals that end a program by default (SIGHUP, SIGINT, SIGTERM) still end it, by
// the signal, and its file goes with it rather than waiting for a reader to find it stale.
TEST(Publisher, TheFileGoesWithAProgramASignalEnds) {
    for (int signal_number : {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE}) {
        Scratch scratch;
        pid_t driver = start_profiled(scratch, {kFixture, scratch.path(), "0"});
        long pid = scratch.wait_for("ready");
        ASSERT_GT(pid, 0);
        ASSERT_TRUE(std::filesystem::exists(figures_file(pid))) << "made before main";
        kill(static_cast<pid_t>(pid), signal_number);
        wait_exit(driver);
        std::ifstream summary(scratch.file("summary"));
        std::string said((std::istreambuf_iterator<char>(summary)), {});
        EXPECT_NE(said.find("was killed by signal " + std::to_string(signal_number)),
                  std::string::npos)
            << said;
        EXPECT_FALSE(std::filesystem::exists(figures_file(pid))) << strsignal(signal_number);
    }
}

// The program finds these signals' dispositions as it left them, the default, and dies of
// one it raises as it would without the collector.
TEST(Publisher, TheProgramReadsTheDefaultOfTheSignalsThatEndItAndDiesOfThem) {
    std::string output = shell_output("MEMUSAGE_LIVE=1 MEMUSAGE_COLOR=never timeout 30 " + kDriver +
                                      " " + SIGNAL_DISPOSITIONS_FIXTURE_PATH + " 2>&1");
    for (const char* line :
         {"SIGHUP default\n", "SIGINT default\n", "SIGQUIT default\n", "SIGTERM default\n",
          "SIGPIPE default\n", "signal(SIGHUP) gave the default\n"})
        EXPECT_NE(output.find(line), std::string::npos) << line << output;
    EXPECT_NE(output.find("was killed by signal 15"), std::string::npos) << output;
    size_t pid_at = output.find("fixture pid ");
    ASSERT_NE(pid_at, std::string::npos) << output;
    long pid = std::stol(output.substr(pid_at + 12));
    EXPECT_FALSE(std::filesystem::exists(figures_file(pid))) << output;
}

TEST(Publisher, AMainThreadThatCallsPthreadExitStillEndsTheProcess) {
    // The process ends with its last thread: the publisher goes once it would be that.
    std::string output = shell_output("MEMUSAGE_LIVE=1 MEMUSAGE_COLOR=never timeout 30 " + kDriver +
                                      " " + MAIN_EXITS_FIXTURE_PATH + " 2>&1; echo status=$?");
    EXPECT_NE(output.find("status=0"), std::string::npos) << output;
    EXPECT_NE(output.find("Memory usage summary"), std::string::npos) << output;
}

TEST(LiveView, RefusesWithoutATerminal) {
    std::string output =
        shell_output(kDriver + " --live /bin/true </dev/null 2>&1; echo status=$?");
    EXPECT_NE(output.find("memusage: the live view needs a terminal"), std::string::npos) << output;
    EXPECT_NE(output.find("status=1"), std::string::npos) << output;
}

// --watch of a process that publishes nothing says why, and how to make a program publish.
TEST(LiveView, SaysWhenAProcessIsNotProfiled) {
    std::string screen;
    {
        // This test is not profiled.
        TmuxPane pane(kDriver + " --watch=" + std::to_string(getpid()));
        EXPECT_TRUE(pane.wait_for("PANE-EXIT=1", screen)) << screen;
        screen = pane.screen_unwrapped();
        EXPECT_NE(screen.find("memusage: process " + std::to_string(getpid()) +
                              " is not running under memusage: start the program with memusage "
                              "PROGRAM (or memusage --live PROGRAM to watch it at once), or "
                              "profile it from now on with memusage --attach=" +
                              std::to_string(getpid()) + " and watch it then\n"),
                  std::string::npos)
            << screen;
    }
    {
        // No process has the pid any more.
        pid_t gone = fork();
        if (gone == 0) _exit(0);
        wait_exit(gone);
        TmuxPane pane(kDriver + " --watch=" + std::to_string(gone));
        EXPECT_TRUE(pane.wait_for("PANE-EXIT=1", screen)) << screen;
        EXPECT_NE(screen.find("memusage: no process " + std::to_string(gone) + " is running"),
                  std::string::npos)
            << screen;
    }
}

TEST(LiveView, SaysWhyAProfiledProcessStartedWithLiveZeroPublishesNothing) {
    Scratch scratch;
    pid_t driver = start_profiled(scratch, {kFixture, scratch.path()}, "0");
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    TmuxPane pane(kDriver + " --watch=" + std::to_string(pid));
    std::string screen;
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=1", screen)) << screen;
    screen = pane.screen_unwrapped();
    EXPECT_NE(screen.find("memusage: process " + std::to_string(pid) +
                          " runs under memusage with MEMUSAGE_LIVE=0, which publishes no live "
                          "figures: start it without that setting to watch it\n"),
              std::string::npos)
        << screen;
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(driver), 0);
}

// --watch of a program started without --live, with allocation sites: the view asks for the
// top sites, and the program's next copy (the 3 MiB block's call) carries them.
TEST(LiveView, WatchAsksAProgramStartedWithoutLiveForItsTopSites) {
    Scratch scratch;
    pid_t driver =
        start_profiled(scratch, {SITES_FIXTURE_PATH, scratch.path()}, nullptr, {"--sites"});
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    TmuxPane pane(kDriver + " --watch=" + std::to_string(pid));
    std::string screen;
    ASSERT_TRUE(pane.wait_for("top sites held now", screen)) << screen;
    // The view has asked once it draws (before its first reading).
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    scratch.touch("step1");
    ASSERT_GT(scratch.wait_for("done1"), 0);
    const std::string big = "hold_big_buffer (" + fixture_location("big") + ")";
    EXPECT_TRUE(pane.wait_for(site_row(3145728, 1, big), screen)) << screen;
    pane.send_keys("q");
    for (const char* step : {"step2", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(driver), 0);
}

// ---- Files and directories the collector and the readers did not make themselves ----

// A scratch XDG_RUNTIME_DIR of the test's own (mode 0700): its memusage directory is
// where the driver looks first.
class RuntimeDirectory : public Scratch {
  public:
    std::string figures() const {
        std::string directory = path() + "/memusage";
        mkdir(directory.c_str(), 0700);
        return directory;
    }
    // The driver's command line with this as its XDG_RUNTIME_DIR.
    std::string driver(const std::string& arguments) const {
        return "XDG_RUNTIME_DIR=" + path() + " " + kDriver + " " + arguments;
    }
};

uint64_t own_start_ticks() {
    std::ifstream stat_file("/proc/self/stat");
    std::string text;
    std::getline(stat_file, text);
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int number = 3; number <= 22; ++number) fields >> field;
    return std::stoull(field);
}

// Live figures as a collector would publish them, for this test process, under the name
// `program`: what another user could forge.
void forge_figures(const std::string& path, const std::string& program) {
    auto header = std::make_unique<memusage::live_format::Header>();
    std::memcpy(header->magic, memusage::live_format::kMagic, sizeof header->magic);
    header->version = memusage::live_format::kVersion;
    header->header_bytes = sizeof *header;
    header->byte_order = memusage::live_format::kByteOrderMark;
    header->word_bytes = sizeof(void*);
    header->pid = static_cast<uint32_t>(getpid());
    header->start_ticks = own_start_ticks();
    std::memcpy(header->program, program.data(), std::min(program.size(), sizeof header->program));
    header->figures.heap_now = header->figures.heap_peak = 4242;
    header->figures.publications = 1;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(header.get()), sizeof *header);
}

uid_t nobody() {
    const passwd* entry = getpwnam("nobody");
    return entry != nullptr ? entry->pw_uid : 65534;
}

TEST(ProcessList, ShowsANameWithEscapeSequencesEscapedAndListsNoFileOfAnotherUser) {
    RuntimeDirectory runtime;
    std::string path = runtime.figures() + "/" + std::to_string(getpid());
    forge_figures(path, "evil\x1b]2;x\x07");
    std::string table = shell_output(runtime.driver("--ps"));
    std::string line = ps_line(table, getpid());
    EXPECT_NE(line.find("evil\\x1b]2;x\\x07"), std::string::npos) << table;
    EXPECT_EQ(table.find('\x1b'), std::string::npos) << "no escape reaches the terminal";
    EXPECT_EQ(table.find('\x07'), std::string::npos);
    EXPECT_NE(line.find("4242"), std::string::npos) << table;

    // Root (and not root of a user namespace that maps no one else) can make it nobody's.
    if (chown(path.c_str(), nobody(), static_cast<gid_t>(-1)) != 0)
        GTEST_SKIP() << "making a file another user's needs root";
    table = shell_output(runtime.driver("--ps"));
    EXPECT_EQ(ps_line(table, getpid()), "") << table;
    EXPECT_TRUE(std::filesystem::exists(path)) << "another user's file is left alone";
}

TEST(LiveView, ShowsAForgedNameEscapedAndSurvivesItsFileTruncatedUnderIt) {
    RuntimeDirectory runtime;
    std::string path = runtime.figures() + "/" + std::to_string(getpid());
    forge_figures(path, "evil\x1b]2;x\x07");
    TmuxPane pane(runtime.driver("--watch=" + std::to_string(getpid())));
    std::string screen;
    ASSERT_TRUE(pane.wait_for("heap now             4242 bytes", screen)) << screen;
    EXPECT_NE(screen.find("memusage: evil\\x1b]2;x\\x07 (pid " + std::to_string(getpid())),
              std::string::npos)
        << screen;
    // Cut short under the view, which reads the file once a second: the view lives through
    // readings of what is left (the elapsed time shown two seconds on: one reading at least).
    auto readings_go_by = [&] {
        long before = shown_number(pane.screen(), "elapsed ");
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (shown_number(pane.screen(), "elapsed ") < before + 2 &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return shown_number(pane.screen(), "elapsed ") >= before + 2;
    };
    ASSERT_EQ(truncate(path.c_str(), 100), 0);
    EXPECT_TRUE(readings_go_by()) << pane.screen();
    pane.send_keys("s");
    EXPECT_TRUE(pane.wait_for("sorted by peak", screen)) << screen;
    ASSERT_EQ(truncate(path.c_str(), 0), 0);
    EXPECT_TRUE(readings_go_by()) << pane.screen();
    pane.send_keys("s");
    EXPECT_TRUE(pane.wait_for("sorted by calls", screen)) << screen;
    EXPECT_NE(screen.find("heap now             4242 bytes"), std::string::npos)
        << "the last whole figures stay\n"
        << screen;
    pane.send_keys("q");
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
}

// The cases that change /dev/shm run in a mount namespace of their own, on a tmpfs of
// `options` mounted there, so that no other run on the machine meets them: `script`
// (sh) runs in it, with DRIVER, FIXTURE, SCRATCH, NOBODY and XDG_RUNTIME_DIR unset.
// Root only (unshare and mount); the test says so when it cannot run.
std::string in_private_shm(const Scratch& scratch, const std::string& options,
                           const std::string& script) {
    std::ofstream(scratch.file("script.sh"))
        << "mount -t tmpfs -o " << options << " tmpfs /dev/shm || exit 90\n"
        << "DRIVER='" << kDriver << "' FIXTURE='" << kFixture << "' SCRATCH=" << scratch.path()
        << " NOBODY=" << nobody() << "\n"
        << "unset XDG_RUNTIME_DIR MEMUSAGE_LIVE\n"
        << script << "\n";
    return shell_output("unshare -m sh " + scratch.file("script.sh") + " 2>&1; echo status=$?");
}

size_t count(const std::string& text, const std::string& part) {
    size_t found = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++found;
    return found;
}

TEST(ProcessList, AnotherUsersFifoOrFileInSharedMemoryNeitherHangsNorFoolsIt) {
    if (geteuid() != 0) GTEST_SKIP() << "a private /dev/shm (unshare -m, mount) needs root";
    Scratch scratch;
    forge_figures(scratch.file("forged"), "forged");
    const std::string pid = std::to_string(getpid());
    // Under the names once predicted (memusage-UID-PID in /dev/shm itself), another user's
    // FIFO and forged figures; in the user's own directory, a FIFO of the user's.
    std::string output =
        in_private_shm(scratch, "size=1m,mode=1777",
                       "U=$(id -u)\n"
                       "mkfifo /dev/shm/memusage-$U-1 && chown $NOBODY /dev/shm/memusage-$U-1\n"
                       "cp $SCRATCH/forged /dev/shm/memusage-$U-" +
                           pid + " && chown $NOBODY /dev/shm/memusage-$U-" + pid +
                           "\n"
                           "mkdir -m 0700 /dev/shm/memusage-$U && mkfifo /dev/shm/memusage-$U/2\n"
                           "timeout 30 $DRIVER --ps; echo ps=$?");
    ASSERT_EQ(output.find("status=90"), std::string::npos) << "no private /dev/shm\n" << output;
    EXPECT_NE(output.find("ps=0"), std::string::npos) << "--ps must not wait (124: it hung)\n"
                                                      << output;
    EXPECT_NE(output.find("no profiled process is running"), std::string::npos) << output;
    EXPECT_EQ(output.find("forged"), std::string::npos) << output;
}

TEST(Publisher, ADirectoryOfAnotherUsersWhereItsOwnWouldBeIsNotUsed) {
    if (geteuid() != 0) GTEST_SKIP() << "a private /dev/shm (unshare -m, mount) needs root";
    Scratch scratch;
    std::string output = in_private_shm(scratch, "size=1m,mode=1777",
                                        "D=/dev/shm/memusage-$(id -u)\n"
                                        "mkdir -m 0700 $D && chown $NOBODY $D\n"
                                        "MEMUSAGE_LIVE=1 $DRIVER sleep 0.2; echo run=$?\n"
                                        "ls -A $D | wc -l | sed 's/^/left=/'");
    ASSERT_EQ(output.find("status=90"), std::string::npos) << "no private /dev/shm\n" << output;
    EXPECT_NE(output.find("run=0"), std::string::npos) << output;
    EXPECT_NE(output.find("Memory usage summary"), std::string::npos) << output;
    EXPECT_EQ(count(output, "memusage: live figures not published: /dev/shm/memusage-" +
                                std::to_string(geteuid()) + " belongs to another user\n"),
              1u)
        << output;
    EXPECT_NE(output.find("left=0"), std::string::npos) << "nothing made in it\n" << output;
}

// The file system of the live figures is full, or read-only: the program runs to its end
// as without MEMUSAGE_LIVE, with one warning.
TEST(Publisher, AFullOrReadOnlyFileSystemLeavesTheProgramRunningWithOneWarning) {
    if (geteuid() != 0) GTEST_SKIP() << "a private /dev/shm (unshare -m, mount) needs root";
    struct Case {
        std::string options, prepare, reason;
    };
    for (const Case& each :
         {Case{"size=64k,mode=1777", "dd if=/dev/zero of=/dev/shm/fill bs=4k 2>/dev/null\n",
               "No space left on device"},
          Case{"size=64k,mode=1777",
               "mkdir -m 0700 /dev/shm/memusage-$(id -u)\n"
               "dd if=/dev/zero of=/dev/shm/fill bs=4k 2>/dev/null\n",
               "No space left on device"},
          Case{"ro,size=64k,mode=1777", "", "Read-only file system"}}) {
        Scratch scratch;
        std::string output = in_private_shm(scratch, each.options,
                                            each.prepare +
                                                "MEMUSAGE_LIVE=1 $DRIVER sleep 0.3; echo run=$?\n"
                                                "timeout 30 $DRIVER --ps; echo ps=$?");
        ASSERT_EQ(output.find("status=90"), std::string::npos) << "no private /dev/shm\n" << output;
        EXPECT_NE(output.find("run=0"), std::string::npos) << output;
        EXPECT_NE(output.find("Memory usage summary"), std::string::npos) << output;
        EXPECT_EQ(count(output, "memusage: live figures not published: "), 1u) << output;
        EXPECT_NE(output.find(each.reason + "\n"), std::string::npos) << output;
        EXPECT_NE(output.find("ps=0"), std::string::npos) << output;
    }
}

TEST(LiveView, SaysWhyItHasNothingToShowWhenTheProgramCannotPublish) {
    if (geteuid() != 0) GTEST_SKIP() << "a private /dev/shm (unshare -m, mount) needs root";
    Scratch scratch;
    std::ofstream(scratch.file("script.sh"))
        << "mount -t tmpfs -o ro,mode=1777 tmpfs /dev/shm || exit 90\n"
        << "unset XDG_RUNTIME_DIR MEMUSAGE_LIVE\n"
        << "exec " << kDriver << " --live " << kFixture << " " << scratch.path() << "\n";
    TmuxPane pane("unshare -m sh " + scratch.file("script.sh"));
    std::string screen;
    ASSERT_GT(scratch.wait_for("ready"), 0);
    EXPECT_TRUE(pane.wait_for("memusage: the live view has nothing to show", screen)) << screen;
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
    ASSERT_TRUE(pane.wait_for("PANE-EXIT=0", screen)) << screen;
    screen = pane.screen_unwrapped();
    EXPECT_NE(screen.find("memusage: the live view has nothing to show: the program publishes no "
                          "live figures (/dev/shm/memusage-" +
                          std::to_string(geteuid()) + ": Read-only file system)"),
              std::string::npos)
        << screen;
    // Said once: the driver's line takes the collector's place.
    EXPECT_EQ(count(screen, "Read-only file system"), 1u) << screen;
    EXPECT_NE(screen.find("Memory usage summary"), std::string::npos) << screen;
}

// --watch of a program that asked to publish and could not: its collector said why.
TEST(LiveView, WatchingAProgramThatCannotPublishPointsAtItsCollectorsWarning) {
    if (geteuid() != 0) GTEST_SKIP() << "a private /dev/shm (unshare -m, mount) needs root";
    Scratch scratch;
    std::ofstream(scratch.file("script.sh"))
        << "mount -t tmpfs -o ro,mode=1777 tmpfs /dev/shm || exit 90\n"
        << "unset XDG_RUNTIME_DIR\n"
        << "MEMUSAGE_LIVE=1 " << kDriver << " " << kFixture << " " << scratch.path() << " 2>"
        << scratch.file("errors") << " >/dev/null &\n"
        << "while [ ! -s " << scratch.file("ready") << " ]; do sleep 0.05; done\n"
        << "exec " << kDriver << " --watch=$(cat " << scratch.file("ready") << ")\n";
    TmuxPane pane("unshare -m sh " + scratch.file("script.sh"));
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    std::string screen;
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=1", screen)) << screen;
    screen = pane.screen_unwrapped();
    EXPECT_NE(screen.find("memusage: process " + std::to_string(pid) +
                          " runs under memusage but publishes nothing: its collector could not "
                          "make its file, or the program has not started yet (memusage --live "
                          "says why on the program's standard error: 'memusage: live figures not "
                          "published: ...')"),
              std::string::npos)
        << screen;
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
}

}  // namespace
