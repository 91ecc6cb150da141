// SPDX-License-Identifier: MIT
// memusage --attach and --detach end to end, on real processes: a multi-threaded C program
// (attach_threads.c) whose calls since the attach the summary, the allocation sites, the leak
// report and the HTML report must count exactly, a python3 http.server answering requests
// while attached (with its sites), a process attached and detached 100 times, and the
// refusals (a process already profiled, a static program, no such process).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/report_data.h"

namespace {

// A command's standard error and output together, and its exit status.
struct Outcome {
    std::string text;
    int status;
};

Outcome run(const std::string& command) {
    Outcome outcome{"", -1};
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return outcome;
    std::array<char, 4096> buffer;
    size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        outcome.text.append(buffer.data(), n);
    const int status = pclose(pipe);
    outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return outcome;
}

Outcome memusage(const std::string& arguments) {
    return run(std::string(MEMUSAGE_DRIVER_PATH) + " " + arguments);
}

// A program started with pipes to its standard input and from its standard output.
class Talker {
  public:
    explicit Talker(const std::vector<std::string>& program) {
        int to_child[2];
        int from_child[2];
        if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            dup2(to_child[0], 0);
            dup2(from_child[1], 1);
            close(to_child[1]);
            close(from_child[0]);
            std::vector<char*> argv;
            for (const std::string& word : program) argv.push_back(const_cast<char*>(word.c_str()));
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        close(to_child[0]);
        close(from_child[1]);
        in_ = fdopen(to_child[1], "w");
        out_ = fdopen(from_child[0], "r");
    }
    ~Talker() {
        if (in_ != nullptr) fclose(in_);
        if (out_ != nullptr) fclose(out_);
        if (pid_ > 0 && !waited_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    Talker(const Talker&) = delete;
    Talker& operator=(const Talker&) = delete;

    pid_t pid() const { return pid_; }
    // One line of its output, without the newline; empty at its end.
    std::string line() {
        char buffer[4096];
        if (out_ == nullptr || fgets(buffer, sizeof buffer, out_) == nullptr) return {};
        std::string text = buffer;
        if (!text.empty() && text.back() == '\n') text.pop_back();
        transcript_ += text + "\n";
        return text;
    }
    std::string say(const std::string& command) {
        fputs((command + "\n").c_str(), in_);
        fflush(in_);
        return line();
    }
    int wait_exit() {
        fclose(in_);
        in_ = nullptr;
        while (!line().empty()) {
        }
        int status = 0;
        waitpid(pid_, &status, 0);
        waited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    const std::string& transcript() const { return transcript_; }

  private:
    pid_t pid_ = -1;
    FILE* in_ = nullptr;
    FILE* out_ = nullptr;
    bool waited_ = false;
    std::string transcript_;
};

// A row of the summary: its calls and bytes ("malloc|  12  3400  0").
std::pair<unsigned long long, unsigned long long> row(const std::string& summary,
                                                      const std::string& name) {
    std::smatch match;
    const std::regex pattern(" *" + name + R"(\| +(\d+) +(\d+))");
    if (!std::regex_search(summary, match, pattern)) return {~0ULL, ~0ULL};
    return {std::stoull(match[1]), std::stoull(match[2])};
}

std::vector<unsigned long long> numbers(const std::string& line) {
    std::vector<unsigned long long> values;
    std::istringstream words(line);
    std::string word;
    while (words >> word)
        if (!word.empty() && isdigit(static_cast<unsigned char>(word[0])))
            values.push_back(std::stoull(word));
    return values;
}

TEST(Attach, CountsEveryThreadsCallsSinceTheAttachAndGivesTheProcessBack) {
    Talker fixture({ATTACH_THREADS_PATH});
    ASSERT_EQ(fixture.line().rfind("ready", 0), 0u);
    const std::string pid = std::to_string(fixture.pid());
    // Attached while every thread allocates and frees: stopped outside the allocator.
    ASSERT_EQ(fixture.say("churn"), "churning");
    Outcome attached = memusage("--attach=" + pid);
    ASSERT_EQ(attached.status, 0) << attached.text;
    EXPECT_NE(attached.text.find("attached to process " + pid), std::string::npos);
    ASSERT_EQ(fixture.say("park"), "parked");
    Outcome detached = memusage("--detach=" + pid);
    ASSERT_EQ(detached.status, 0) << detached.text;
    EXPECT_NE(detached.text.find("Memory usage summary"), std::string::npos) << detached.text;
    // Attached again while the threads wait: the summary counts exactly what they did since.
    attached = memusage("--attach=" + pid);
    ASSERT_EQ(attached.status, 0) << attached.text;
    const std::string counted = fixture.say("count 500");
    ASSERT_EQ(counted.rfind("counted", 0), 0u) << counted;
    detached = memusage("--detach=" + pid);
    ASSERT_EQ(detached.status, 0) << detached.text;
    const std::vector<unsigned long long> did = numbers(counted);
    ASSERT_EQ(did.size(), 8u);
    const std::string& summary = detached.text;
    EXPECT_NE(summary.find("the figures are since attach"), std::string::npos) << summary;
    EXPECT_NE(summary.find("heap in use at attach"), std::string::npos) << summary;
    EXPECT_EQ(row(summary, "malloc"), std::make_pair(did[0], did[1])) << summary;
    EXPECT_EQ(row(summary, "calloc"), std::make_pair(did[2], did[3])) << summary;
    EXPECT_EQ(row(summary, "realloc"), std::make_pair(did[4], did[5])) << summary;
    // The blocks kept from before the attach were freed too: those frees are not counted.
    EXPECT_EQ(row(summary, "free"), std::make_pair(did[6], did[7])) << summary;
    // The program runs on as it would have: its replies, then its own exit status.
    ASSERT_EQ(fixture.say("churn"), "churning");
    ASSERT_EQ(fixture.say("park"), "parked");
    fixture.say("quit");
    EXPECT_EQ(fixture.wait_exit(), 3);
    EXPECT_EQ(fixture.transcript(),
              "ready " + pid + "\nchurning\nparked\n" + counted + "\nchurning\nparked\nbye\n");
}

}  // namespace

namespace {

TEST(Attach, AProcessAttachedAndDetachedAHundredTimesRunsOnAndFreesEverything) {
    Talker fixture({ATTACH_THREADS_PATH});
    ASSERT_EQ(fixture.line().rfind("ready", 0), 0u);
    const std::string pid = std::to_string(fixture.pid());
    // The heap as the threads' churning leaves it, its blocks all freed (what stays in use is
    // the C library's own: its per-thread caches of freed blocks among them).
    ASSERT_EQ(fixture.say("churn"), "churning");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ASSERT_EQ(fixture.say("park"), "parked");
    ASSERT_EQ(fixture.say("count 10").rfind("counted", 0), 0u);
    const std::vector<unsigned long long> before = numbers(fixture.say("heap"));
    ASSERT_EQ(fixture.say("churn"), "churning");
    for (int i = 0; i < 100; ++i) {
        // The first ten while every thread allocates (each waits for a moment when none is
        // in the allocator or the collector); the others while they wait, to keep it short.
        if (i == 10) {
            ASSERT_EQ(fixture.say("park"), "parked");
        }
        Outcome attached = memusage("--attach=" + pid);
        ASSERT_EQ(attached.status, 0) << "attach " << i << ": " << attached.text;
        Outcome detached = memusage("--detach=" + pid);
        ASSERT_EQ(detached.status, 0) << "detach " << i << ": " << detached.text;
        ASSERT_NE(detached.text.find("Memory usage summary"), std::string::npos) << detached.text;
    }
    ASSERT_EQ(fixture.say("count 10").rfind("counted", 0), 0u);
    const std::vector<unsigned long long> after = numbers(fixture.say("heap"));
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(after.size(), 1u);
    std::cerr << "heap in use before " << before[0] << ", after 100 attaches " << after[0] << "\n";
    // Every block the program allocated while attached went back: what stays is what loading
    // each collector took (the dynamic linker's record of it), a few KiB each.
    EXPECT_LT(after[0], before[0] + 100 * 16 * 1024);
    fixture.say("quit");
    EXPECT_EQ(fixture.wait_exit(), 3);
}

}  // namespace

namespace {

// A program started under the preloaded collector, as memusage or LD_PRELOAD starts one.
std::string preloaded(const std::string& program) {
    return std::string("LD_PRELOAD=") + COLLECTOR_PATH + " " + program;
}

TEST(Attach, RefusesWhatCannotBeAttachedToWithAOneLineMessage) {
    // No such process: one that ended and was waited for.
    const pid_t gone = fork();
    if (gone == 0) _exit(0);
    waitpid(gone, nullptr, 0);
    Outcome refused = memusage("--attach=" + std::to_string(gone));
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(refused.text, "memusage: no process " + std::to_string(gone) + "\n");
    refused = memusage("--detach=" + std::to_string(gone));
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(refused.text, "memusage: no process " + std::to_string(gone) + "\n");

    // A statically linked program: no dynamic linker to load the collector.
    Talker still({STATIC_SLEEPER_PATH});
    ASSERT_EQ(still.line(), "ready");
    refused = memusage("--attach=" + std::to_string(still.pid()));
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.text.find("is statically linked"), std::string::npos) << refused.text;
    EXPECT_EQ(std::count(refused.text.begin(), refused.text.end(), '\n'), 1);

    // A process the preloaded collector profiles already.
    Talker profiled({"/bin/sh", "-c", "exec env " + preloaded(ATTACH_THREADS_PATH)});
    ASSERT_EQ(profiled.line().rfind("ready", 0), 0u);
    refused = memusage("--attach=" + std::to_string(profiled.pid()));
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.text.find("is already profiled"), std::string::npos) << refused.text;
    EXPECT_NE(refused.text.find("--watch=" + std::to_string(profiled.pid())), std::string::npos);

    // A process attached already; one not attached cannot be detached.
    Talker fixture({ATTACH_THREADS_PATH});
    ASSERT_EQ(fixture.line().rfind("ready", 0), 0u);
    const std::string pid = std::to_string(fixture.pid());
    refused = memusage("--detach=" + pid);
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.text.find("is not attached"), std::string::npos) << refused.text;
    ASSERT_EQ(memusage("--attach=" + pid).status, 0);
    refused = memusage("--attach=" + pid);
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.text.find("is already attached"), std::string::npos) << refused.text;
    ASSERT_EQ(memusage("--detach=" + pid).status, 0);

    // Another user's process (the tests run as root, the driver here as nobody).
    refused = run("setpriv --reuid=65534 --regid=65534 --clear-groups " +
                  std::string(MEMUSAGE_DRIVER_PATH) + " --attach=" + pid);
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.text.find("belongs to another user"), std::string::npos) << refused.text;

    // What an attach cannot take.
    refused = memusage("--attach=" + pid + " -m");
    EXPECT_EQ(refused.status, 1);
    // The usage error's line, then where help is (as for every usage error).
    auto first_line = [](const std::string& text) { return text.substr(0, text.find('\n')); };
    EXPECT_EQ(first_line(refused.text),
              "memusage: --attach does not take -m (an attached process takes -d, --threads, "
              "--color, the allocation sites' reports and exports, --events and --html)");
    refused = memusage("--detach=" + pid + " --sites");
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(first_line(refused.text), "memusage: --detach does not take --sites");
    // A report that cannot be made is refused before the attach, in one line.
    refused = memusage("--attach=" + pid + " --folded-metric=nonsense --folded=/dev/null");
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(std::count(refused.text.begin(), refused.text.end(), '\n'), 1) << refused.text;
    EXPECT_EQ(memusage("--detach=" + pid).status, 1);  // not attached by the refused one
    refused = memusage("--attach=" + pid + " /bin/true");
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.text.find("takes no program"), std::string::npos) << refused.text;
    fixture.say("quit");
    EXPECT_EQ(fixture.wait_exit(), 3);
}

// An HTTP GET of `url` with curl: its body.
std::string fetch(const std::string& url) { return run("curl -s --max-time 20 " + url).text; }

// A real server for the attach: python3's http.server on a free port, serving this folder.
const std::vector<std::string> kFileServer = {
    "/usr/bin/python3", "-u",        "-m",          "http.server",        "0",
    "--bind",           "127.0.0.1", "--directory", ATTACH_TEST_DIRECTORY};

// The address of the fixture's source on `server`, from its first line ("Serving HTTP on
// 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."); empty, a failure added, if none.
std::string source_url(Talker& server) {
    const std::string serving = server.line();
    std::smatch match;
    if (!std::regex_search(serving, match, std::regex(R"(port (\d+))"))) {
        ADD_FAILURE() << "no port in " << serving;
        return {};
    }
    return "http://127.0.0.1:" + match[1].str() + "/attach_threads.c";
}

TEST(Attach, AServerAttachedWhileItAnswersRequestsAnswersOnAndExitsNormally) {
    Talker server(kFileServer);
    const std::string url = source_url(server);
    ASSERT_FALSE(url.empty());
    const std::string body = fetch(url);
    ASSERT_NE(body.find("SPDX-License-Identifier"), std::string::npos);
    const std::string pid = std::to_string(server.pid());
    Outcome attached = memusage("--attach=" + pid);
    ASSERT_EQ(attached.status, 0) << attached.text;
    for (int i = 0; i < 20; ++i) ASSERT_EQ(fetch(url), body) << "request " << i;
    Outcome detached = memusage("--detach=" + pid);
    ASSERT_EQ(detached.status, 0) << detached.text;
    // Serving 20 files took memory, and gave back at least some of it.
    const auto mallocs = row(detached.text, "malloc");
    EXPECT_GT(mallocs.first, 20u) << detached.text;
    EXPECT_NE(mallocs.first, ~0ULL) << detached.text;
    EXPECT_GT(row(detached.text, "free").first, 0u) << detached.text;
    for (int i = 0; i < 5; ++i) ASSERT_EQ(fetch(url), body) << "after detach, request " << i;
    // Ctrl-C ends it as it ends the server always: its message, exit status 0.
    kill(server.pid(), SIGINT);
    EXPECT_EQ(server.wait_exit(), 0);
}

}  // namespace

namespace {

// A directory of the test's own, removed with it.
class Directory {
  public:
    Directory() {
        char name[] = "/tmp/memusage-attach-test-XXXXXX";
        path_ = mkdtemp(name) != nullptr ? name : "/tmp";
    }
    ~Directory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    Directory(const Directory&) = delete;
    Directory& operator=(const Directory&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

// The sites report's "Bytes allocated" ranking, summed by the innermost function named:
// bytes and calls.
std::pair<unsigned long long, unsigned long long> allocated_at(const std::string& report,
                                                               const std::string& function) {
    const size_t from = report.find("\nBytes allocated:\n");
    if (from == std::string::npos) return {~0ULL, ~0ULL};
    const std::string ranking = report.substr(from, report.find("\n\n", from + 1) - from);
    const std::regex entry(R"(#\d+ (\d+) bytes in (\d+) calls?\n +at (\w+) )");
    std::pair<unsigned long long, unsigned long long> sum{0, 0};
    for (std::sregex_iterator at(ranking.begin(), ranking.end(), entry), end; at != end; ++at) {
        if ((*at)[3] != function) continue;
        sum.first += std::stoull((*at)[1]);
        sum.second += std::stoull((*at)[2]);
    }
    return sum;
}

TEST(AttachSites, NameEveryThreadsStacksLeaksAndPageSinceTheAttach) {
    Directory directory;
    Talker fixture({ATTACH_THREADS_PATH});
    ASSERT_EQ(fixture.line().rfind("ready", 0), 0u);
    const std::string pid = std::to_string(fixture.pid());
    // Blocks from before the attach, kept through it: none of them is the attach's.
    ASSERT_EQ(fixture.say("hold 7").rfind("held", 0), 0u);
    const std::string page = directory.path() + "/attached.html";
    Outcome attached = memusage("--attach=" + pid + " --sites=20 --leaks --html=" + page);
    ASSERT_EQ(attached.status, 0) << attached.text;
    ASSERT_EQ(fixture.say("release"), "released");
    const std::string counted = fixture.say("count 300");
    const std::vector<unsigned long long> did = numbers(counted);
    ASSERT_EQ(did.size(), 8u) << counted;
    const std::string held = fixture.say("hold 25");
    const std::vector<unsigned long long> kept = numbers(held);
    ASSERT_EQ(kept.size(), 2u) << held;
    Outcome detached = memusage("--detach=" + pid);
    ASSERT_EQ(detached.status, 0) << detached.text;
    const std::string& text = detached.text;

    // The sites count what every thread did since the attach, at the stacks it did it at:
    // count_rounds's malloc (grown by its realloc, which keeps the block's site) and calloc,
    // and held_block's malloc.
    EXPECT_NE(text.find("Allocation sites since the attach: "), std::string::npos) << text;
    EXPECT_NE(text.find("still allocated at detach: " + std::to_string(kept[1]) + " bytes in " +
                        std::to_string(kept[0]) + " blocks"),
              std::string::npos)
        << text;
    EXPECT_EQ(allocated_at(text, "count_rounds"),
              std::make_pair(did[1] + did[5] + did[3], did[0] + did[2]))
        << text;
    EXPECT_EQ(allocated_at(text, "held_block"), std::make_pair(kept[1], kept[0])) << text;
    // The leaks: what it still held at the detach, allocated since the attach.
    EXPECT_NE(
        text.find("Leaks: " + std::to_string(kept[1]) + " bytes in " + std::to_string(kept[0]) +
                  " blocks allocated since the attach and never freed, from 1 stack "
                  "(still allocated at detach"),
        std::string::npos)
        << text;
    const size_t leaks = text.find("Bytes never freed, by stack");
    ASSERT_NE(leaks, std::string::npos) << text;
    EXPECT_NE(text.find("at held_block (", leaks), std::string::npos) << text;
    // A thread's stack is not known from its start: no stack peaks.
    EXPECT_EQ(text.find("Stack peaks"), std::string::npos) << text;

    // The page's figures are the text summary's.
    const nlohmann::json data = test_support::report_data(page);
    ASSERT_TRUE(data.is_object()) << "no report data in " << page;
    const nlohmann::json& summary = data["summary"];
    ASSERT_TRUE(summary.is_object());
    for (const auto& printed : summary["rows"]) {
        const std::string name = printed["name"];
        const auto calls_bytes = row(text, name);
        EXPECT_EQ(printed["calls"], calls_bytes.first) << name;
        EXPECT_EQ(printed["bytes"], calls_bytes.second) << name;
    }
    std::smatch peak;
    ASSERT_TRUE(std::regex_search(text, peak, std::regex(R"(heap peak: (\d+), stack peak)")));
    EXPECT_EQ(summary["heap_peak"], std::stoull(peak[1]));
    EXPECT_EQ(data["run"]["pid"], fixture.pid());
    ASSERT_TRUE(data["sites"].is_array());
    EXPECT_EQ(data["sites"].size(), 3u);
    bool noted = false;
    for (const auto& note : data["run"]["notes"])
        noted = noted || note.get<std::string>().find("since the attach") != std::string::npos;
    EXPECT_TRUE(noted) << data["run"]["notes"];
    // Only the page is left: the files the reports were made from are gone.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(directory.path()),
                            std::filesystem::directory_iterator()),
              1);
    for (const char* suffix : {".dat", ".sites", ".events", ".summary"})
        EXPECT_FALSE(std::filesystem::exists("/tmp/memusage-attach-" + std::to_string(getuid()) +
                                             "/run-" + pid + suffix))
            << suffix;

    ASSERT_EQ(fixture.say("release"), "released");
    fixture.say("quit");
    EXPECT_EQ(fixture.wait_exit(), 3);
    EXPECT_EQ(fixture.transcript(), "ready " + pid + "\nheld 28 1386\nreleased\n" + counted + "\n" +
                                        held + "\nreleased\nbye\n");
}

TEST(AttachSites, AProcessThatExitsWhileAttachedLeavesItsSitesForTheDetach) {
    Talker fixture({ATTACH_THREADS_PATH});
    ASSERT_EQ(fixture.line().rfind("ready", 0), 0u);
    const std::string pid = std::to_string(fixture.pid());
    Outcome attached = memusage("--attach=" + pid + " --leaks");
    ASSERT_EQ(attached.status, 0) << attached.text;
    const std::vector<unsigned long long> kept = numbers(fixture.say("hold 10"));
    ASSERT_EQ(kept.size(), 2u);
    // Its threads free what they hold as they end.
    fixture.say("quit");
    EXPECT_EQ(fixture.wait_exit(), 3);
    Outcome detached = memusage("--detach=" + pid);
    ASSERT_EQ(detached.status, 0) << detached.text;
    EXPECT_NE(detached.text.find("Memory usage summary"), std::string::npos) << detached.text;
    EXPECT_EQ(row(detached.text, "malloc").first, kept[0]) << detached.text;
    EXPECT_NE(detached.text.find("No leaks: every block the program allocated since the attach"),
              std::string::npos)
        << detached.text;
}

TEST(AttachSites, AServerAttachedWithSitesServesOnAndItsSitesFileReads) {
    Directory directory;
    Talker server(kFileServer);
    const std::string url = source_url(server);
    ASSERT_FALSE(url.empty());
    const std::string body = fetch(url);
    ASSERT_NE(body.find("SPDX-License-Identifier"), std::string::npos);
    const std::string pid = std::to_string(server.pid());
    const std::string sites = directory.path() + "/server.sites";
    Outcome attached = memusage("--attach=" + pid + " --sites=5 --sites-file=" + sites);
    ASSERT_EQ(attached.status, 0) << attached.text;
    for (int i = 0; i < 20; ++i) ASSERT_EQ(fetch(url), body) << "request " << i;
    Outcome detached = memusage("--detach=" + pid);
    ASSERT_EQ(detached.status, 0) << detached.text;
    const auto mallocs = row(detached.text, "malloc");
    EXPECT_GT(mallocs.first, 20u) << detached.text;
    EXPECT_NE(detached.text.find("Allocation sites since the attach: "), std::string::npos)
        << detached.text;
    // Named by the option, the sites file stays, and memusagestat reads it as the driver did.
    Outcome read = run(std::string(MEMUSAGESTAT_PATH) + " --sites=" + sites);
    ASSERT_EQ(read.status, 0) << read.text;
    const size_t report = detached.text.find("Allocation sites since the attach: ");
    ASSERT_NE(report, std::string::npos);
    EXPECT_EQ(read.text.substr(0, read.text.find('\n')),
              detached.text.substr(report, detached.text.find('\n', report) - report));
    for (int i = 0; i < 5; ++i) ASSERT_EQ(fetch(url), body) << "after detach, request " << i;
    kill(server.pid(), SIGINT);
    EXPECT_EQ(server.wait_exit(), 0);
}

}  // namespace
