// SPDX-License-Identifier: MIT
// memusage --attach and --detach end to end, on real processes: a multi-threaded C program
// (attach_threads.c) whose calls since the attach the summary must count exactly, a python3
// http.server answering requests while attached, a process attached and detached 100 times,
// and the refusals (a process already profiled, a static program, no such process).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

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
