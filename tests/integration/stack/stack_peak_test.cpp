// SPDX-License-Identifier: MIT
// Stack peaks: the frames that held each thread's deepest stack, from the collector's
// capture through the sites file to memusagestat's and the driver's report.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "collector_run.h"

namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;

const std::string kOurMemusage = OUR_MEMUSAGE;

// "file.c:LINE" of the line marked MARK(marker) in a fixture's source, as the report prints it.
std::string location(const std::string& source, const std::string& marker) {
    std::ifstream in(std::string(FIXTURE_SOURCE_DIR) + "/" + source);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
        if (line.find("MARK(" + marker + ")") != std::string::npos)
            return source + ":" + std::to_string(number);
    ADD_FAILURE() << "no MARK(" << marker << ") in " << source;
    return source + ":?";
}

Outcome report_of(const std::string& file, const std::vector<std::string>& options = {}) {
    std::vector<std::string> argv = {collector_test::kOurMemusagestat, "--sites=" + file};
    argv.insert(argv.end(), options.begin(), options.end());
    return collector_test::run(argv, {}, "");
}

// One thread's part of the report: its title line and the lines up to the next thread's.
struct ThreadPart {
    std::string title;
    std::vector<std::string> lines;
    std::string text() const {
        std::string all = title + "\n";
        for (const std::string& line : lines) all += line + "\n";
        return all;
    }
};

std::vector<ThreadPart> threads_of(const std::string& report) {
    std::vector<ThreadPart> parts;
    std::istringstream in(report);
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("Thread "))
            parts.push_back({line, {}});
        else if (!parts.empty() && !line.empty())
            parts.back().lines.push_back(line);
    }
    return parts;
}

// The bytes at the head of "Thread N (...): 412,800 bytes at ...".
uint64_t peak_bytes(const ThreadPart& part) {
    std::smatch match;
    if (!std::regex_search(part.title, match, std::regex(R"(: ([0-9,]+) bytes at )"))) return 0;
    std::string digits;
    for (char c : match[1].str())
        if (c != ',') digits += c;
    return std::stoull(digits);
}

// The line of the frames list naming `function` (folded or not); empty if none.
std::string frame_line(const ThreadPart& part, const std::string& function) {
    bool in_frames = false;
    for (const std::string& line : part.lines) {
        if (line.find("outermost first") != std::string::npos) in_frames = true;
        if (line.find("functions by the bytes") != std::string::npos) in_frames = false;
        if (in_frames && line.find("  " + function) != std::string::npos) return line;
    }
    return {};
}

Outcome run_with_stack_peak(const std::string& program, const std::string& file,
                            const std::vector<std::string>& extra = {}) {
    std::vector<std::string> env = {"MEMUSAGE_STACK_PEAK=" + file};
    env.insert(env.end(), extra.begin(), extra.end());
    return collector_test::run({fixture(program)}, env);
}

// 100 frames of at least 4 KiB, folded into one line at the recursive call's line, and the
// function ranked first by the bytes it held.
TEST(StackPeak, ARecursionIsFoldedWithItsFrameSizesAndLine) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = run_with_stack_peak("stack_fixture_recursion", file);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 1u) << report.out;
    const ThreadPart& main = threads[0];
    EXPECT_NE(main.title.find("(main"), std::string::npos) << main.title;
    EXPECT_NE(main.title.find("on its own stack"), std::string::npos) << main.title;
    EXPECT_GE(peak_bytes(main), 100u * 4096) << main.text();
    EXPECT_LT(peak_bytes(main), 100u * 4096 + 64 * 1024) << main.text();

    std::string line = frame_line(main, "deep");
    ASSERT_FALSE(line.empty()) << main.text();
    std::smatch match;
    ASSERT_TRUE(std::regex_search(line, match, std::regex("deep \u00d7([0-9]+), ([0-9,]+) B each")))
        << line;
    int frames = std::stoi(match[1].str());
    EXPECT_GE(frames, 95) << line << " (captured within the margin of the bottom)";
    EXPECT_LE(frames, 100) << line;
    std::string each;
    for (char c : match[2].str())
        if (c != ',') each += c;
    EXPECT_GE(std::stoull(each), 4096u) << line;
    EXPECT_LT(std::stoull(each), 4096u + 256) << line;
    EXPECT_NE(line.find(location("stack_recursion.c", "recursion")), std::string::npos) << line;
    // main is outside the recursion, above it.
    EXPECT_FALSE(frame_line(main, "main").empty()) << main.text();

    bool ranked = false;
    for (const std::string& row : main.lines) {
        if (row.find("functions by the bytes") != std::string::npos) ranked = true;
        if (ranked && row.find('%') != std::string::npos) {
            EXPECT_NE(row.find("deep"), std::string::npos) << "ranked first: " << row;
            break;
        }
    }
    EXPECT_TRUE(ranked) << main.text();
}

// With MEMUSAGE_SITES the same peak is in the sites file, after the rankings.
TEST(StackPeak, TheSitesFileCarriesItToo) {
    Scratch scratch;
    std::string file = scratch / "sites";
    Outcome run =
        collector_test::run({fixture("stack_fixture_recursion")}, {"MEMUSAGE_SITES=" + file});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    size_t rankings = report.out.find("Bytes held at the heap peak");
    size_t peaks = report.out.find("Stack peaks");
    ASSERT_NE(rankings, std::string::npos) << report.out;
    ASSERT_NE(peaks, std::string::npos) << report.out;
    EXPECT_LT(rankings, peaks);
    Outcome only = report_of(file, {"--stack-peak"});
    EXPECT_EQ(only.out.find("Bytes held at the heap peak"), std::string::npos) << only.out;
    EXPECT_NE(only.out.find("deep \u00d7"), std::string::npos) << only.out;
}

// A thread's own deep chain is that thread's peak, under its name, beside the main thread's
// shallow one.
TEST(StackPeak, AThreadsDeepChainIsReportedForThatThread) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = run_with_stack_peak("stack_fixture_thread", file);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 2u) << report.out;
    EXPECT_NE(threads[0].title.find("(main"), std::string::npos) << report.out;
    const ThreadPart& worker = threads[1];
    EXPECT_NE(worker.title.find("\"deepworker\""), std::string::npos) << worker.title;
    EXPECT_GE(peak_bytes(worker), 150u * 2048) << worker.text();
    EXPECT_LT(peak_bytes(threads[0]), 64u * 1024) << threads[0].text();
    std::string line = frame_line(worker, "thread_chain");
    EXPECT_NE(line.find("thread_chain \u00d7"), std::string::npos) << worker.text();
    EXPECT_NE(line.find(location("stack_thread.c", "thread_chain")), std::string::npos) << line;
    EXPECT_TRUE(frame_line(threads[0], "thread_chain").empty()) << threads[0].text();
}

// --top: the main thread always, then as many other threads as asked.
TEST(StackPeak, TopLimitsTheOtherThreads) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    ASSERT_TRUE(run_with_stack_peak("stack_fixture_thread", file).exited_zero());
    Outcome report = report_of(file, {"--top=1"});
    EXPECT_EQ(threads_of(report.out).size(), 2u) << report.out;
}

// A handler on an alternate signal stack: measured from that stack's top, never from the
// main thread's first stack pointer (gigabytes away), and said to be on it.
TEST(StackPeak, AHandlerOnAnAlternateStackIsMeasuredOnIt) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = run_with_stack_peak("stack_fixture_altstack", file);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    collector_test::Summary summary = collector_test::parse_summary(run.err);
    EXPECT_GE(summary.stack_peak, 24u * 1024) << run.err;
    EXPECT_LT(summary.stack_peak, 256u * 1024) << "the alternate stack is 256 KiB: " << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 1u) << report.out;
    EXPECT_NE(threads[0].title.find("on its alternate signal stack"), std::string::npos)
        << threads[0].title;
    EXPECT_GE(peak_bytes(threads[0]), 24u * 1024) << report.out;
    EXPECT_LT(peak_bytes(threads[0]), 256u * 1024) << report.out;
    EXPECT_NE(frame_line(threads[0], "handler_work").find(location("stack_altstack.c", "handler")),
              std::string::npos)
        << report.out;
    // The kernel's signal frame, on the alternate stack; main's frames are on the other one.
    EXPECT_FALSE(frame_line(threads[0], "(signal frame)").empty()) << report.out;
    EXPECT_NE(frame_line(threads[0], "main").find("-  main"), std::string::npos) << report.out;
}

// A coroutine's stack (makecontext) is not measured: the summary's stack peak stays the
// main stack's, and no peak is taken on the coroutine's stack.
TEST(StackPeak, ACoroutineStackIsNotTakenForAHugeStack) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = run_with_stack_peak("stack_fixture_coroutine", file);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    collector_test::Summary summary = collector_test::parse_summary(run.err);
    EXPECT_LT(summary.stack_peak, 32u * 1024) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_EQ(report.out.find("coroutine_body"), std::string::npos) << report.out;
    for (const ThreadPart& thread : threads_of(report.out))
        EXPECT_LT(peak_bytes(thread), 32u * 1024) << thread.text();
}

// A peak between allocations is found by a profiling tick (with a data file), captured from
// the interrupted context: its innermost frame is the instruction the tick interrupted.
TEST(StackPeak, AProfilingTickCapturesAPeakWithoutAllocation) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run =
        run_with_stack_peak("stack_fixture_tick", file, {"MEMUSAGE_OUTPUT=" + (scratch / "data")});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 1u) << report.out;
    const ThreadPart& main = threads[0];
    EXPECT_NE(main.title.find("(profiling tick)"), std::string::npos) << main.title;
    EXPECT_GE(peak_bytes(main), 40u * 4096) << main.text();
    EXPECT_FALSE(frame_line(main, "ticked \u00d740").empty()) << main.text();
    // The interrupted instruction is in spin's loop: the program calls nothing there.
    EXPECT_NE(frame_line(main, "spin").find(location("stack_tick.c", "spin")), std::string::npos)
        << main.text();
}

// The driver: --stack-peak alone reports after the summary, without the sites rankings.
TEST(StackPeak, TheDriverReportsItAfterTheSummary) {
    Scratch scratch;
    Outcome run =
        collector_test::run({kOurMemusage, "--stack-peak", fixture("stack_fixture_recursion")},
                            {"TMPDIR=" + scratch.path()}, "");
    ASSERT_TRUE(run.exited_zero()) << run.err;
    size_t summary = run.err.find("Memory usage summary");
    size_t peaks = run.err.find("Stack peaks");
    ASSERT_NE(summary, std::string::npos) << run.err;
    ASSERT_NE(peaks, std::string::npos) << run.err;
    EXPECT_LT(summary, peaks);
    EXPECT_NE(run.err.find("deep \u00d7"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("Bytes held at the heap peak"), std::string::npos) << run.err;
}

}  // namespace

// The main thread's stack is measured from the collector's start, ticks before the
// program's first allocation included: a 1 MiB recursion spinning at its bottom before any
// malloc is the run's stack peak (glibc's collector says about 1,043,392 bytes), and the
// report names the recursion, not the first allocation's caller.
TEST(StackPeak, TicksBeforeTheFirstAllocationAreMeasured) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = run_with_stack_peak("stack_fixture_before_malloc", file,
                                      {"MEMUSAGE_OUTPUT=" + (scratch / "data")});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    collector_test::Summary summary = collector_test::parse_summary(run.err);
    EXPECT_GE(summary.stack_peak, 256u * 4096) << run.err;
    EXPECT_LT(summary.stack_peak, 256u * 4096 + 64 * 1024) << run.err;
    std::vector<memusage::Record> records = collector_test::read_records(scratch / "data");
    ASSERT_GE(records.size(), 2u);
    EXPECT_EQ(records[1].stack, summary.stack_peak);
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 1u) << report.out;
    EXPECT_NE(threads[0].title.find("(profiling tick)"), std::string::npos) << threads[0].title;
    EXPECT_FALSE(frame_line(threads[0], "before_malloc \u00d7").empty()) << threads[0].text();
}

// A thread is measured from its start routine's entry: its only allocation, at the bottom
// of a 50-deep chain of 2 KiB frames, shows the chain's depth. A POSIX thread and a C11 one
// (thrd_create, which does not start it through pthread_create by name).
class ThreadStart : public testing::TestWithParam<const char*> {};

TEST_P(ThreadStart, AThreadIsMeasuredFromItsStartRoutine) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = collector_test::run({fixture("stack_fixture_thread_first_deep"), GetParam()},
                                      {"MEMUSAGE_STACK_PEAK=" + file});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    collector_test::Summary summary = collector_test::parse_summary(run.err);
    EXPECT_GE(summary.stack_peak, 50u * 2048) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 2u) << report.out;
    const ThreadPart& worker = threads[1];
    EXPECT_NE(worker.title.find("\"firstdeep\""), std::string::npos) << worker.title;
    EXPECT_GE(peak_bytes(worker), 50u * 2048) << worker.text();
    EXPECT_LT(peak_bytes(worker), 50u * 2048 + 16 * 1024) << worker.text();
    EXPECT_FALSE(frame_line(worker, "first_deep \u00d7").empty()) << worker.text();
}

INSTANTIATE_TEST_SUITE_P(StackPeak, ThreadStart, testing::Values("posix", "c11"));

// The functions' percentages of a stack held by a ranking row; 0 when the row is missing.
double ranked_percent(const ThreadPart& part, const std::string& function) {
    bool ranked = false;
    for (const std::string& row : part.lines) {
        if (row.find("functions by the bytes") != std::string::npos) ranked = true;
        std::smatch match;
        if (ranked && std::regex_search(row, match, std::regex(R"(([0-9.]+)%  (.*)$)")) &&
            match[2].str() == function)
            return std::stod(match[1].str());
    }
    return 0;
}

// 400 frames of a recursion: the frames beyond the 127 listed are folded by function, and
// count in the ranking, where the recursion holds nearly all the stack.
TEST(StackPeak, FramesBeyondTheListedOnesCountInTheRanking) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = run_with_stack_peak("stack_fixture_long_recursion", file);
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 1u) << report.out;
    const ThreadPart& main = threads[0];
    EXPECT_GE(peak_bytes(main), 400u * 1000) << main.text();
    EXPECT_GE(ranked_percent(main, "rec"), 95.0) << main.text();
    // The outer frames' line names them, the recursion's count with them.
    std::string outer;
    for (const std::string& line : main.lines)
        if (line.find("outer frames beyond the 127 listed") != std::string::npos) outer = line;
    ASSERT_FALSE(outer.empty()) << main.text();
    std::smatch match;
    ASSERT_TRUE(std::regex_search(outer, match, std::regex("rec \u00d7([0-9]+)"))) << outer;
    EXPECT_GE(std::stoi(match[1].str()) + 127, 395) << outer;
    EXPECT_NE(outer.find("main"), std::string::npos) << outer;
    // The listed part of the recursion.
    EXPECT_NE(frame_line(main, "rec").find("rec \u00d7"), std::string::npos) << main.text();
}

// A recursion through five functions is folded into one line per run of cycles, not listed
// frame by frame; each function is ranked with its own share.
TEST(StackPeak, ARecursionCycleIsFolded) {
    Scratch scratch;
    std::string file = scratch / "peaks";
    Outcome run = collector_test::run({fixture("stack_fixture_long_recursion"), "cycle"},
                                      {"MEMUSAGE_STACK_PEAK=" + file});
    ASSERT_TRUE(run.exited_zero()) << run.err;
    Outcome report = report_of(file);
    ASSERT_TRUE(report.exited_zero()) << report.err;
    std::vector<ThreadPart> threads = threads_of(report.out);
    ASSERT_EQ(threads.size(), 1u) << report.out;
    const ThreadPart& main = threads[0];
    EXPECT_LT(main.lines.size(), 30u) << main.text();
    bool cycle = false;
    for (const std::string& line : main.lines)
        cycle |= line.find("cycle of 5: ") != std::string::npos &&
                 line.find(" \u00d7") != std::string::npos;
    EXPECT_TRUE(cycle) << main.text();
    for (const char* step : {"step_a", "step_b", "step_c", "step_d", "step_e"})
        EXPECT_GE(ranked_percent(main, step), 15.0) << step << "\n" << main.text();
}
