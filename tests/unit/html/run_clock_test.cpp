// SPDX-License-Identifier: MIT
// The report's clock: a board's data file counts microseconds of the wall clock while the
// other files count the board's counter; both land on one line of seconds.
#include "html/run_clock.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace memusagestat {
namespace {

namespace machine_format = memusage::machine_format;

constexpr uint64_t kWallStart = 1'700'000'000'000'000;  // microseconds since the epoch

// A run of two seconds whose summary file read a 62.5 MHz counter (qemu's aarch64) and the
// monotonic clock at its start and end, and whose data file says `data_start`, `data_end`.
struct TwoSecondRun {
    ProfileHeader data;
    RunSummary summary;
    TwoSecondRun(uint64_t data_start, uint64_t data_end) {
        data.start_time = data_start;
        data.end_time = data_end;
        summary.start_cycles = 1'000'000;
        summary.end_cycles = 1'000'000 + 125'000'000;
        summary.start_ns = 5'000'000'000;
        summary.end_ns = 7'000'000'000;
    }
};

TEST(RunClock, ABoardsDataFileInMicrosecondsLandsOnTheSummarysCounter) {
    TwoSecondRun run(kWallStart, kWallStart + 2'000'000);
    RunClockSources sources;
    sources.data = &run.data;
    sources.summary = &run.summary;
    EXPECT_EQ(data_file_time_unit(sources), machine_format::kMicroseconds);
    const RunClock clock = run_clock(sources);
    EXPECT_FALSE(clock.relative());
    EXPECT_DOUBLE_EQ(clock.data_file_seconds(kWallStart), 0.0);
    EXPECT_NEAR(clock.data_file_seconds(kWallStart + 500'000), 0.5, 1e-6);
    EXPECT_NEAR(clock.seconds(run.summary.start_cycles + 31'250'000), 0.5, 1e-6);
    EXPECT_NEAR(clock.seconds(clock.end), 2.0, 1e-6);
}

TEST(RunClock, AnX86DataFileStaysOnTheCounter) {
    // The time-stamp counter at 3 GHz stamps the data file and the summary alike.
    TwoSecondRun run(1'000'000, 1'000'000 + 6'000'000'000);
    run.summary.end_cycles = 1'000'000 + 6'000'000'000;
    RunClockSources sources;
    sources.data = &run.data;
    sources.summary = &run.summary;
    EXPECT_EQ(data_file_time_unit(sources), machine_format::kDataFileTimeUnknown);
    const RunClock clock = run_clock(sources);
    EXPECT_FALSE(clock.data_file_in_microseconds);
    EXPECT_NEAR(clock.data_file_seconds(1'000'000 + 3'000'000'000), 1.0, 1e-6);
}

TEST(RunClock, WithTheSitesStampAloneTheDataFilesMicrosecondsAreTheClock) {
    TwoSecondRun run(kWallStart, kWallStart + 2'000'000);
    machine_format::MachineStamp board = {machine_format::kByteOrderMark, 183, 8,
                                          machine_format::kMicroseconds};
    RunClockSources sources;
    sources.data = &run.data;
    sources.sites_machine = &board;
    const RunClock clock = run_clock(sources);
    EXPECT_FALSE(clock.relative());
    EXPECT_NEAR(clock.data_file_seconds(kWallStart + 250'000), 0.25, 1e-9);
    EXPECT_NEAR(clock.seconds(clock.end), 2.0, 1e-9);
}

TEST(RunClock, WithoutAStampOrAClockADataFileIsInFractionsOfTheRun) {
    TwoSecondRun run(kWallStart, kWallStart + 2'000'000);
    RunClockSources sources;
    sources.data = &run.data;
    const RunClock clock = run_clock(sources);
    EXPECT_TRUE(clock.relative());
    EXPECT_NEAR(clock.data_file_seconds(kWallStart + 500'000), 0.25, 1e-9);
}

TEST(RunClock, RoundsTo100NanosecondsAsTheLibraryDoes) {
    // Halves, the doubles around them, large and negative times, and a sweep.
    std::vector<double> times = {0.0,    0.00000005,  0.00000015, 1.23456785, 0x1p40,
                                 0x1p60, -0.00000005, -2.5e-7,    1e300};
    for (double t : {0.00000005, 1.23456785, 3.00000025})
        for (int n = 0; n < 4; ++n) times.push_back(t = std::nextafter(t, 1.0));
    for (double t = 0; t < 50; t += 0.0123456789) times.push_back(t);
    for (double t : times)
        EXPECT_EQ(RunClock::round_to_tenth_microsecond(t), std::round(t * 1e7) / 1e7) << t;
    EXPECT_TRUE(std::isnan(RunClock::round_to_tenth_microsecond(std::nan(""))));
}

}  // namespace
}  // namespace memusagestat
