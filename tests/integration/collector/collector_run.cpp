// SPDX-License-Identifier: MIT
#include "collector_run.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>

extern char** environ;

namespace collector_test {

std::string from_environment(const char* name, const std::string& otherwise) {
    const char* value = getenv(name);
    return value != nullptr && *value != '\0' ? value : otherwise;
}

std::string fixture(const std::string& name) {
    // The same place in the other build tree: FIXTURE_DIR ends in tests/integration/<suite>.
    static const std::string directory = [] {
        std::string native = FIXTURE_DIR;
        size_t suite = native.rfind("/tests/integration/");
        std::string tree = from_environment("MEMUSAGE_TEST_BUILD_DIR", "");
        return tree.empty() || suite == std::string::npos ? native : tree + native.substr(suite);
    }();
    return directory + "/" + name;
}

namespace {

// The ELF header's e_machine (offset 18, two bytes in the file's byte order), or 0.
unsigned elf_machine(const std::string& path) {
    unsigned char header[20] = {};
    std::ifstream file(path, std::ios::binary);
    if (!file.read(reinterpret_cast<char*>(header), sizeof header)) return 0;
    if (memcmp(header,
               "\x7f"
               "ELF",
               4) != 0)
        return 0;
    bool big_endian = header[5] == 2;
    return big_endian ? header[18] << 8 | header[19] : header[19] << 8 | header[18];
}

}  // namespace

bool built_for_another_machine(const std::string& path) {
    static const unsigned own = elf_machine("/proc/self/exe");
    unsigned machine = elf_machine(path);
    return machine != 0 && machine != own;
}

bool Outcome::exited_zero() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

int Outcome::signal() const { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }

namespace {

// The collector's and the driver's variables are each test's own choice; MEMUSAGE_SYSROOT,
// where the readers find a board's files, is the boards' run's (tests/cross/run.sh).
bool inherited_variable_to_drop(const char* entry) {
    if (strncmp(entry, "MEMUSAGE_SYSROOT=", 17) == 0) return false;
    return strncmp(entry, "MEMUSAGE_", 9) == 0 || strncmp(entry, "LD_PRELOAD=", 11) == 0 ||
           strncmp(entry, "NO_COLOR=", 9) == 0;
}

std::vector<std::string> environment(const std::vector<std::string>& extra,
                                     const std::string& preload) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e)
        if (!inherited_variable_to_drop(*e)) env.emplace_back(*e);
    if (!preload.empty()) env.push_back("LD_PRELOAD=" + preload);
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> result;
    for (auto& s : strings) result.push_back(s.data());
    result.push_back(nullptr);
    return result;
}

using Clock = std::chrono::steady_clock;

// Reads both pipes to their end, together, so that neither can fill up and block the child.
// With a deadline, `on_deadline` runs once when it passes, and the pipes are read for at
// most a few more seconds.
template <typename OnDeadline>
void drain(int out_fd, int err_fd, std::string& out, std::string& err,
           std::optional<Clock::time_point> deadline, OnDeadline on_deadline) {
    bool deadline_passed = false;
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    std::string* sinks[2] = {&out, &err};
    int open_fds = 2;
    char buffer[65536];
    while (open_fds > 0) {
        int timeout = -1;
        if (deadline) {
            auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
            timeout = left.count() > 0 ? static_cast<int>(left.count()) : 0;
        }
        int ready = poll(fds, 2, timeout);
        if (ready < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (ready == 0 && deadline) {
            if (deadline_passed) break;  // the pipes stayed open even after the kill
            deadline_passed = true;
            on_deadline();
            deadline = Clock::now() + std::chrono::seconds(5);
            continue;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                sinks[i]->append(buffer, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (pollfd& p : fds)
        if (p.fd >= 0) close(p.fd);
}

// Waits for the program; with a deadline, kills its process group when that passes first
// (a program can close both pipes and still hang).
void reap(pid_t pid, Outcome& outcome, std::optional<Clock::time_point> deadline) {
    while (deadline && !outcome.timed_out) {
        pid_t reaped = waitpid(pid, &outcome.status, WNOHANG);
        if (reaped == pid) return;
        if (reaped < 0 && errno != EINTR) return;
        if (Clock::now() < *deadline) {
            usleep(10000);
            continue;
        }
        outcome.timed_out = true;
        kill(-pid, SIGKILL);
    }
    while (waitpid(pid, &outcome.status, 0) < 0 && errno == EINTR) {
    }
}

std::string strip_escapes(const std::string& text) {
    static const std::regex escape("\x1b\\[[0-9;]*m");
    return std::regex_replace(text, escape, "");
}

Outcome run_until(const std::vector<std::string>& argv, const std::vector<std::string>& extra,
                  const std::string& preload, std::optional<Clock::duration> limit) {
    std::optional<Clock::time_point> deadline;
    if (limit) deadline = Clock::now() + *limit;
    std::vector<std::string> args = argv;
    if (!args.empty() && built_for_another_machine(args.front())) {
        // qemu-user hands its environment (LD_PRELOAD and the collector's variables) to
        // the program it runs; being static, it takes no preload itself.
        std::istringstream words(from_environment("MEMUSAGE_TEST_EMULATOR", ""));
        std::vector<std::string> emulator{std::istream_iterator<std::string>(words), {}};
        args.insert(args.begin(), emulator.begin(), emulator.end());
    }
    std::vector<std::string> env = environment(extra, preload);
    std::vector<char*> arg_pointers = pointers(args);
    std::vector<char*> env_pointers = pointers(env);
    int out_pipe[2], err_pipe[2];
    Outcome outcome;
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        ADD_FAILURE() << "pipe: " << strerror(errno);
        return outcome;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (deadline) setpgid(0, 0);  // a group of its own, killed together at the deadline
        rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        execve(arg_pointers[0], arg_pointers.data(), env_pointers.data());
        _exit(127);
    }
    if (deadline) setpgid(pid, pid);  // whichever of the two runs first
    close(out_pipe[1]);
    close(err_pipe[1]);
    drain(out_pipe[0], err_pipe[0], outcome.out, outcome.err, deadline, [&] {
        outcome.timed_out = true;
        kill(-pid, SIGKILL);
    });
    reap(pid, outcome, deadline);
    if (deadline) kill(-pid, SIGKILL);  // whatever it left behind
    return outcome;
}

}  // namespace

Outcome run(const std::vector<std::string>& argv, const std::vector<std::string>& extra,
            const std::string& preload) {
    return run_until(argv, extra, preload, std::nullopt);
}

Outcome run_bounded(int seconds, const std::vector<std::string>& argv,
                    const std::vector<std::string>& extra, const std::string& preload) {
    return run_until(argv, extra, preload, std::chrono::seconds(seconds));
}

const Row& Summary::row(const std::string& label) const {
    static const Row missing;
    auto found = rows.find(label);
    if (found == rows.end()) {
        ADD_FAILURE() << "the summary has no " << label << " row";
        return missing;
    }
    return found->second;
}

int count_summaries(const std::string& text) {
    int count = 0;
    for (size_t at = text.find("Memory usage summary:"); at != std::string::npos;
         at = text.find("Memory usage summary:", at + 1))
        ++count;
    return count;
}

Summary parse_summary(const std::string& text) {
    Summary summary;
    const std::string plain = strip_escapes(text);
    size_t start = plain.find("Memory usage summary:");
    if (start == std::string::npos) {
        ADD_FAILURE() << "no summary in:\n" << text;
        return summary;
    }
    std::istringstream lines(plain.substr(start));
    std::string line;
    std::getline(lines, line);
    if (sscanf(line.c_str(),
               "Memory usage summary: heap total: %" SCNu64 ", heap peak: %" SCNu64
               ", stack peak: %" SCNu64,
               &summary.heap_total, &summary.heap_peak, &summary.stack_peak) != 3)
        ADD_FAILURE() << "unreadable first summary line: " << line;
    while (std::getline(lines, line)) {
        if (line.find("Memory usage summary:") != std::string::npos) break;
        size_t bar = line.find('|');
        if (bar != std::string::npos && bar <= 8) {
            std::string label = line.substr(0, bar);
            label.erase(0, label.find_first_not_of(' '));
            Row row;
            sscanf(line.c_str() + bar + 1, "%" SCNu64 " %" SCNu64 " %" SCNu64, &row.calls,
                   &row.bytes, &row.failed);
            summary.rows[label] = row;
            if (label == "realloc")
                sscanf(line.c_str(), "%*[^(](nomove:%" SCNd64 ", dec:%" SCNd64 ", free:%" SCNd64,
                       &summary.realloc_nomove, &summary.realloc_dec, &summary.realloc_free);
            if (label == "mremap")
                sscanf(line.c_str(), "%*[^(](nomove: %" SCNd64 ", dec:%" SCNd64,
                       &summary.mremap_nomove, &summary.mremap_dec);
            continue;
        }
        char range[32];
        uint64_t count = 0;
        if (sscanf(line.c_str(), " %31s %" SCNu64, range, &count) == 2 &&
            (strcmp(range, "large") == 0 || strchr(range, '-') != nullptr))
            summary.histogram[range] = count;
    }
    return summary;
}

std::string without_stack_peak(const std::string& text) {
    static const std::regex stack_peak("stack peak: [0-9]+");
    return std::regex_replace(text, stack_peak, "stack peak: (masked)");
}

std::vector<memusage::Record> read_records(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(in.good() || in.eof()) << "cannot read " << path;
    EXPECT_EQ(bytes.size() % sizeof(memusage::Record), 0u) << path << " has a torn record";
    std::vector<memusage::Record> records(bytes.size() / sizeof(memusage::Record));
    if (!records.empty()) memcpy(records.data(), bytes.data(), records.size() * sizeof(records[0]));
    return records;
}

std::vector<uint64_t> event_heaps(const std::vector<memusage::Record>& records) {
    std::vector<uint64_t> heaps;
    for (size_t i = memusage::kHeaderRecords; i < records.size(); ++i)
        heaps.push_back(records[i].heap);
    return heaps;
}

bool events_in_time_order(const std::vector<memusage::Record>& records) {
    for (size_t i = memusage::kHeaderRecords + 1; i < records.size(); ++i)
        if (records[i].time() < records[i - 1].time()) return false;
    return true;
}

bool glibc_collector_present() { return access(kGlibcCollector.c_str(), R_OK) == 0; }

}  // namespace collector_test
