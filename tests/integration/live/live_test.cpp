// The live figures end to end: the collector publishes, and memusage --live, --watch and
// --ps show them, driven in a tmux pane (tmux_pane.h) on live_fixture.c, whose heap the
// test steps through with files.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

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
    Scratch() {
        char pattern[] = "/tmp/memusage-live-test-XXXXXX";
        path_ = mkdtemp(pattern);
    }
    ~Scratch() { std::filesystem::remove_all(path_); }
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
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
    std::string path_;
};

std::string figures_file(long pid) {
    return "/dev/shm/memusage-" + std::to_string(getuid()) + "-" + std::to_string(pid);
}

bool process_exists(long pid) { return kill(static_cast<pid_t>(pid), 0) == 0; }

// A fixture under the collector, in the background, through the driver (no view),
// publishing as asked in its environment.
pid_t start_profiled(const Scratch& scratch, int threads = 0) {
    pid_t driver = fork();
    if (driver == 0) {
        setenv("MEMUSAGE_LIVE", "1", 1);
        freopen("/dev/null", "w", stdout);
        freopen(scratch.file("summary").c_str(), "w", stderr);
        execl(kDriver.c_str(), "memusage", kFixture.c_str(), scratch.path().c_str(),
              std::to_string(threads).c_str(), static_cast<char*>(nullptr));
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
    pid_t driver = start_profiled(scratch, 50);
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
    pid_t driver = start_profiled(scratch);
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

TEST(ProcessList, ListsRunningProgramsNotFinishedOrKilledOnesAndCleansUpAfterTheKilled) {
    Scratch first, second, killed;
    pid_t first_driver = start_profiled(first);
    pid_t second_driver = start_profiled(second, 3);
    pid_t killed_driver = start_profiled(killed);
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

TEST(ProcessList, ProgramsThatDidNotAskAreNotListed) {
    Scratch scratch;
    pid_t driver = fork();
    if (driver == 0) {
        unsetenv("MEMUSAGE_LIVE");
        freopen("/dev/null", "w", stderr);
        execl(kDriver.c_str(), "memusage", kFixture.c_str(), scratch.path().c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    long pid = scratch.wait_for("ready");
    ASSERT_GT(pid, 0);
    EXPECT_FALSE(std::filesystem::exists(figures_file(pid)));
    EXPECT_EQ(ps_line(shell_output(kDriver + " --ps"), pid), "");
    for (const char* step : {"step1", "step2", "step3", "quit"}) scratch.touch(step);
    EXPECT_EQ(wait_exit(driver), 0);
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

TEST(LiveView, SaysWhenAProcessIsNotProfiled) {
    TmuxPane pane(kDriver + " --watch=" + std::to_string(getpid()));
    std::string screen;
    EXPECT_TRUE(pane.wait_for("PANE-EXIT=1", screen)) << screen;
    EXPECT_NE(screen.find("no live figures for process " + std::to_string(getpid())),
              std::string::npos)
        << screen;
}

}  // namespace
