// SPDX-License-Identifier: MIT
// Out-of-memory testing: the allocation limit and failure injection make allocation
// calls fail as glibc's malloc does (NULL or ENOMEM, errno ENOMEM), counted in the
// summary's failed calls and reported after it. The fixture checks every result.
#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <sstream>

#include "collector_run.h"

namespace collector_test {
namespace {

constexpr int kRounds = 100;  // 6 allocation calls each (realloc twice)

struct Failure {
    int number;
    std::string function;
    bool operator<(const Failure& other) const { return number < other.number; }
};

struct OutOfMemoryRun {
    Outcome outcome;
    Summary summary;
    std::vector<Failure> failures;  // as the program saw them
    int kept = -1;
    bool bad_errno = false;
};

OutOfMemoryRun run_out_of_memory(const std::vector<std::string>& settings) {
    std::vector<std::string> environment = settings;
    environment.push_back("MEMUSAGE_COLOR=never");
    OutOfMemoryRun result;
    result.outcome =
        run({fixture("collector_fixture_out_of_memory"), std::to_string(kRounds)}, environment);
    EXPECT_TRUE(result.outcome.exited_zero()) << result.outcome.err;
    result.summary = parse_summary(result.outcome.err);
    std::istringstream lines(result.outcome.out);
    std::string word;
    while (lines >> word) {
        if (word == "failed") {
            Failure failure;
            lines >> failure.number >> failure.function;
            result.failures.push_back(failure);
        } else if (word == "kept") {
            lines >> result.kept;
        } else if (word == "bad") {
            result.bad_errno = true;
            std::getline(lines, word);
        }
    }
    return result;
}

uint64_t failed_calls(const Summary& summary) {
    uint64_t failed = 0;
    for (const auto& [label, row] : summary.rows) failed += row.failed;
    return failed;
}

TEST(OutOfMemory, WithoutSettingsNothingFails) {
    OutOfMemoryRun run = run_out_of_memory({});
    EXPECT_TRUE(run.failures.empty());
    EXPECT_EQ(run.kept, 5 * kRounds);
    EXPECT_EQ(run.outcome.err.find("Allocation limit"), std::string::npos);
    EXPECT_EQ(run.outcome.err.find("Failure injection"), std::string::npos);
}

TEST(OutOfMemory, LimitRefusesWhatWouldPassIt) {
    // Each round adds 1000 (malloc) + 1000 (calloc) + 1000 (realloc) + 1000 + 1024.
    OutOfMemoryRun run = run_out_of_memory({"MEMUSAGE_LIMIT=10k"});
    EXPECT_FALSE(run.bad_errno) << run.outcome.out;
    // Rounds 1 and 2 fit (10048 bytes); from round 3 on every call is refused, and
    // realloc(NULL) failing leaves no block to grow: 5 calls a round.
    EXPECT_EQ(run.failures.size(), 5u * (kRounds - 2));
    EXPECT_EQ(run.kept, 10);
    EXPECT_EQ(run.summary.heap_peak, 10048u);
    // So is the program's stdout buffer (4096 bytes, when it prints): stdio then
    // writes unbuffered.
    EXPECT_EQ(failed_calls(run.summary), run.failures.size() + 1);
    EXPECT_EQ(run.summary.row("malloc").failed, static_cast<uint64_t>(kRounds - 2 + 1));
    EXPECT_NE(run.outcome.err.find("Allocation limit: 10240 bytes; " +
                                   std::to_string(run.failures.size() + 1) +
                                   " calls refused, the first a malloc of 1000 bytes at heap "
                                   "size 10048\n"),
              std::string::npos)
        << run.outcome.err;
}

TEST(OutOfMemory, FailAtMakesExactlyThatCallFail) {
    for (int n : {1, 2, 3, 4, 5, 6, 7, 300}) {
        OutOfMemoryRun run = run_out_of_memory({"MEMUSAGE_FAIL_AT=" + std::to_string(n)});
        EXPECT_FALSE(run.bad_errno) << run.outcome.out;
        ASSERT_EQ(run.failures.size(), 1u) << n << "\n" << run.outcome.out;
        EXPECT_EQ(run.failures[0].number, n);
        EXPECT_EQ(failed_calls(run.summary), 1u);
        std::string line = "Failure injection: fail allocation call " + std::to_string(n) +
                           "; 1 call made to fail: #" + std::to_string(n) + " ";
        EXPECT_NE(run.outcome.err.find(line), std::string::npos) << run.outcome.err;
    }
}

TEST(OutOfMemory, FailFromMakesEveryLaterCallFail) {
    OutOfMemoryRun run = run_out_of_memory({"MEMUSAGE_FAIL_FROM=13"});
    EXPECT_FALSE(run.bad_errno) << run.outcome.out;
    // 100 rounds of 6 calls, a realloc growing only what realloc(NULL) gave: from call 13
    // (round 3's first) on, each round makes 5 calls (no second realloc), all failing.
    ASSERT_EQ(run.failures.size(), 5u * (kRounds - 2));
    EXPECT_EQ(run.failures.front().number, 13);
    EXPECT_EQ(run.failures.front().function, "malloc");
    EXPECT_EQ(run.kept, 10);
    // The program's stdout buffer, allocated when it prints, fails too: glibc's stdio
    // then writes unbuffered.
    EXPECT_GE(failed_calls(run.summary), run.failures.size());
    EXPECT_NE(run.outcome.err.find("Failure injection: fail every allocation call from 13 on; "),
              std::string::npos);
}

TEST(OutOfMemory, RandomFailuresAreReproducibleWithTheSeed) {
    auto failed_numbers = [](const OutOfMemoryRun& run) {
        std::set<int> numbers;
        for (const Failure& failure : run.failures) numbers.insert(failure.number);
        return numbers;
    };
    OutOfMemoryRun first =
        run_out_of_memory({"MEMUSAGE_FAIL_PROBABILITY=0.2", "MEMUSAGE_FAIL_SEED=11"});
    OutOfMemoryRun again =
        run_out_of_memory({"MEMUSAGE_FAIL_PROBABILITY=0.2", "MEMUSAGE_FAIL_SEED=11"});
    OutOfMemoryRun other =
        run_out_of_memory({"MEMUSAGE_FAIL_PROBABILITY=0.2", "MEMUSAGE_FAIL_SEED=12"});
    EXPECT_FALSE(first.bad_errno) << first.outcome.out;
    EXPECT_EQ(failed_numbers(first), failed_numbers(again));
    EXPECT_NE(failed_numbers(first), failed_numbers(other));
    // About a fifth of some 550 calls.
    EXPECT_GT(first.failures.size(), 50u);
    EXPECT_LT(first.failures.size(), 180u);
    // The summary lists the first ten failed calls: the program's first ten failures
    // (nothing allocates before the program's first call).
    // The summary names the aligned functions by their row.
    std::string listed = "made to fail:";
    for (size_t i = 0; i < 10; ++i) {
        std::string function = first.failures[i].function;
        if (function == "posix_memalign" || function == "aligned_alloc") function = "aligned";
        listed +=
            (i == 0 ? " #" : ", #") + std::to_string(first.failures[i].number) + " " + function;
    }
    EXPECT_NE(first.outcome.err.find(listed), std::string::npos) << first.outcome.err;
}

TEST(OutOfMemory, AProgramThatIgnoresFailuresCrashesAsItWould) {
    Outcome outcome =
        run({fixture("collector_fixture_out_of_memory"), "1", "ignore"}, {"MEMUSAGE_FAIL_AT=1"});
    EXPECT_EQ(outcome.signal(), SIGSEGV) << outcome.err;
    Outcome untouched =
        run({fixture("collector_fixture_out_of_memory"), "1", "ignore"}, {"MEMUSAGE_FAIL_AT=2"});
    EXPECT_TRUE(untouched.exited_zero()) << untouched.err;
}

TEST(OutOfMemory, BadSettingsAreReportedAndIgnored) {
    for (const char* setting : {"MEMUSAGE_LIMIT=12q", "MEMUSAGE_FAIL_AT=0", "MEMUSAGE_FAIL_FROM=-1",
                                "MEMUSAGE_FAIL_PROBABILITY=1.5"}) {
        OutOfMemoryRun run = run_out_of_memory({setting});
        std::string variable = std::string(setting).substr(0, std::string(setting).find('='));
        EXPECT_NE(run.outcome.err.find("memusage: " + variable + " ignored: it should be "),
                  std::string::npos)
            << run.outcome.err;
        EXPECT_TRUE(run.failures.empty()) << setting;
    }
    OutOfMemoryRun both = run_out_of_memory({"MEMUSAGE_FAIL_AT=1", "MEMUSAGE_FAIL_FROM=2"});
    EXPECT_NE(both.outcome.err.find("memusage: MEMUSAGE_FAIL_* ignored: it should be only one of"),
              std::string::npos);
    EXPECT_TRUE(both.failures.empty());
}

}  // namespace
}  // namespace collector_test
