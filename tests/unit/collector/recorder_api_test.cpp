// SPDX-License-Identifier: MIT
// The recorder's answers to the in-process API and its per-thread rows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "record/recorder.h"

namespace memusage {
namespace {

TEST(RecorderApi, FiguresIncludeTheAskingThreadsOwnEvents) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    ThreadLog* log = recorder.attach_thread();
    recorder.record(*log, 1000, 8);
    recorder.record(*log, -400, 64);
    Recorder::HeapFigures figures = recorder.figures(log);
    EXPECT_EQ(figures.current, 600u);
    EXPECT_EQ(figures.peak, 1000u);
    EXPECT_EQ(figures.phase_peak, 1000u);
    EXPECT_EQ(figures.stack_peak, 64u);
}

TEST(RecorderApi, ResettingThePeakStartsAPhaseButKeepsTheRunsPeak) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    ThreadLog* log = recorder.attach_thread();
    recorder.record(*log, 5000, 0);
    recorder.record(*log, -4000, 0);
    recorder.reset_phase_peak(log);
    EXPECT_EQ(recorder.figures(log).phase_peak, 1000u);
    recorder.record(*log, 300, 0);
    recorder.record(*log, -300, 0);
    Recorder::HeapFigures figures = recorder.figures(log);
    EXPECT_EQ(figures.phase_peak, 1300u);
    EXPECT_EQ(figures.peak, 5000u);
    Stats totals = {};
    recorder.finish(totals, 1);
    EXPECT_EQ(totals.heap_peak, 5000u) << "the summary's peak is the whole run's";
}

// Threads allocate and free while others ask: every answer is a heap the program had
// (never negative, never above what the threads hold at most), and nothing is lost.
TEST(RecorderApi, AskingWhileOtherThreadsRecord) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 64));
    constexpr int kThreads = 3, kEvents = 20000;
    std::atomic<bool> bad_answer{false};
    std::atomic<int> done{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&] {
            ThreadLog* log = recorder.attach_thread();
            for (int i = 0; i < kEvents; ++i) {
                recorder.record(*log, 100, 0);
                recorder.record(*log, -100, 0);
            }
            recorder.detach_thread(log);
            done.fetch_add(1);
        });
    std::thread asker([&] {
        ThreadLog* log = recorder.attach_thread();
        while (done.load() < kThreads) {
            Recorder::HeapFigures figures = recorder.figures(log);
            if (figures.current > 100u * kThreads || figures.phase_peak > 100u * kThreads)
                bad_answer = true;
            recorder.reset_phase_peak(log);
        }
        recorder.detach_thread(log);
    });
    for (std::thread& thread : threads) thread.join();
    asker.join();
    EXPECT_FALSE(bad_answer.load());
    Recorder::HeapFigures figures = recorder.figures(nullptr);
    EXPECT_EQ(figures.current, 0u);
    EXPECT_GE(figures.peak, 100u);
    EXPECT_LE(figures.peak, 100u * kThreads);
}

TEST(RecorderApi, ThreadRowsInTheOrderThreadsBegan) {
    Recorder recorder;
    ASSERT_TRUE(recorder.init(nullptr, 32768));
    recorder.keep_thread_rows();
    ThreadLog* main_log = recorder.attach_thread();
    strcpy(main_log->name, "main");
    main_log->stats.calls_of(Call::malloc) = 3;
    main_log->stats.bytes_of(Call::malloc) = 700;
    main_log->net_heap = 700;
    std::thread([&] {
        ThreadLog* log = recorder.attach_thread();
        strcpy(log->name, "worker");
        log->stats.calls_of(Call::malloc) = 2;
        log->stats.bytes_of(Call::malloc) = 64;
        log->stats.calls_of(Call::free) = 2;
        log->stats.bytes_of(Call::free) = 64;
        log->stack_peak = 512;
        recorder.detach_thread(log);
    }).join();
    Stats totals = {};
    recorder.finish(totals, 1);
    size_t count = 0;
    const ThreadRow* rows = recorder.thread_rows(count);
    ASSERT_EQ(count, 2u);
    EXPECT_EQ(rows[0].tid, getpid());  // the test's main thread
    EXPECT_STREQ(rows[0].name, "main");
    EXPECT_EQ(rows[0].calls, 3u);
    EXPECT_EQ(rows[0].allocated, 700u);
    EXPECT_EQ(rows[0].net, 700);
    EXPECT_NE(rows[1].tid, rows[0].tid);
    EXPECT_STREQ(rows[1].name, "worker");
    EXPECT_EQ(rows[1].calls, 4u);
    EXPECT_EQ(rows[1].allocated, 64u);
    EXPECT_EQ(rows[1].freed, 64u);
    EXPECT_EQ(rows[1].net, 0);
    EXPECT_EQ(rows[1].stack_peak, 512u);
    recorder.thread_rows(count);
    EXPECT_EQ(count, 2u) << "running threads are added once";
}

}  // namespace
}  // namespace memusage
