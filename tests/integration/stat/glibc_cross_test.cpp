// SPDX-License-Identifier: MIT
// Compatibility both ways: ours draws what glibc's collector wrote, glibc's
// memusagestat draws what our collector and our tools wrote.
#include <gtest/gtest.h>

#include <cstring>

#include "stat_test_support.h"

using namespace stat_test;

namespace {

// Runs the fixture under `collector`, writing `data`.
void trace_fixture(const std::string& collector, const std::string& data) {
    const Outcome traced = run({FIXTURE_ALLOC}, {"LD_PRELOAD=" + collector,
                                                 "MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
    ASSERT_EQ(traced.exit_code, 0) << traced.output;
    ASSERT_TRUE(std::filesystem::exists(data));
}

// The fixture's heap peaks (1,000,000 bytes) after the 1000th of about 2000 events, so
// near the middle column the heap curve touches the top of the frame, and only there.
void expect_fixture_peak_in_the_middle(const std::string& png) {
    Image image;
    ASSERT_TRUE(decode_png(png, image));
    EXPECT_EQ(image.width, 800u);
    EXPECT_EQ(image.height, 600u);
    bool at_top_in_middle = false;
    for (unsigned x = 380; x <= 420; ++x)
        at_top_in_middle |= image.near(x, 21, [](Rgb c) { return c.reddish(); });
    EXPECT_TRUE(at_top_in_middle);
    EXPECT_FALSE(image.near(100, 21, [](Rgb c) { return c.reddish(); }));
}

}  // namespace

TEST(GlibcCross, OursDrawsAFileWrittenByGlibcsCollector) {
    ScratchDir dir;
    ASSERT_NO_FATAL_FAILURE(trace_fixture(GLIBC_LIBMEMUSAGE, dir / "glibc.dat"));
    const Outcome drawn = run({MEMUSAGESTAT, dir / "glibc.dat", dir / "ours.png"});
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    expect_fixture_peak_in_the_middle(dir / "ours.png");
}

TEST(GlibcCross, GlibcDrawsAFileWrittenByOurCollector) {
    ScratchDir dir;
    ASSERT_NO_FATAL_FAILURE(trace_fixture(OUR_LIBMEMUSAGE, dir / "ours.dat"));
    const Outcome drawn = run({GLIBC_MEMUSAGESTAT, dir / "ours.dat", dir / "glibc.png"});
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    expect_fixture_peak_in_the_middle(dir / "glibc.png");
}

TEST(GlibcCross, GlibcDrawsAFileWeWrote) {
    ScratchDir dir;
    flat_heap_and_stack().write(dir / "ours.dat");
    const Outcome drawn = run({GLIBC_MEMUSAGESTAT, dir / "ours.dat", dir / "glibc.png"});
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    Image image;
    ASSERT_TRUE(decode_png(dir / "glibc.png", image));
    EXPECT_EQ(image.width, 800u);
    EXPECT_EQ(image.height, 600u);
    EXPECT_TRUE(image.near(400, value_row(600000, 1000000), [](Rgb c) { return c.reddish(); }));
}

TEST(GlibcCross, GlibcDrawsAHeaderWeRepaired) {
    DataFile data;
    data.start = data.end = 100;  // zero peaks: a run that died
    for (int i = 0; i < 500; ++i)
        data.events.push_back(record(i < 250 ? 2000 * i : 300000, 8, 100 + i));
    ScratchDir dir;
    data.write(dir / "dead.dat");
    ASSERT_EQ(run({MEMUSAGESTAT, dir / "dead.dat", dir / "ours.png"}).exit_code, 0);
    // glibc now finds a complete header (ours) and draws the same scale.
    const Outcome drawn = run({GLIBC_MEMUSAGESTAT, dir / "dead.dat", dir / "glibc.png"});
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    Image image;
    ASSERT_TRUE(decode_png(dir / "glibc.png", image));
    EXPECT_TRUE(image.near(600, value_row(300000, 498000), [](Rgb c) { return c.reddish(); }));
}

// Both collectors write a program that allocates nothing as zero peaks and an end time
// after the start: a complete file, drawn by ours without a warning.
TEST(GlibcCross, ARunThatAllocatedNothingIsCompleteWhoeverWroteIt) {
    for (const char* collector : {GLIBC_LIBMEMUSAGE, OUR_LIBMEMUSAGE}) {
        ScratchDir dir;
        const Outcome traced =
            run({"/bin/true"}, {std::string("LD_PRELOAD=") + collector,
                                "MEMUSAGE_OUTPUT=" + (dir / "true.dat"), "MEMUSAGE_NO_TIMER=1"});
        ASSERT_EQ(traced.exit_code, 0) << traced.output;
        const Outcome drawn = run({MEMUSAGESTAT, dir / "true.dat", dir / "true.png"});
        EXPECT_EQ(drawn.exit_code, 0) << drawn.output;
        EXPECT_EQ(drawn.output, "") << collector;
        EXPECT_EQ(read_file(dir / "true.png").substr(1, 3), "PNG");
    }
}

namespace {

// Red pixels inside the plot, away from its edges (the frame, the scales' first and last
// rows): what a curve that rises across the plot leaves, and a dot in a corner does not.
unsigned red_inside(const Image& image) {
    unsigned count = 0;
    for (unsigned y = 40; y + 40 < image.height; ++y)
        for (unsigned x = 60; x + 60 < image.width; ++x) count += image.at(x, y).reddish();
    return count;
}

}  // namespace

// A run of one allocation is a line from the start, with nothing allocated, to that
// allocation: by calls, from the bottom left corner to the top right one; by time, to
// where its time falls. glibc's memusagestat draws it so; ours must not leave a dot in the
// corner under the frame.
TEST(GlibcCross, ASingleAllocationIsALineAcrossThePlot) {
    DataFile data = DataFile::with_peaks(4096, 0, 4096, 100);
    data.events.push_back(record(4096, 0, 50));
    ScratchDir dir;
    data.write(dir / "one.dat");
    for (bool by_time : {false, true}) {
        SCOPED_TRACE(by_time ? "by time" : "by calls");
        // Halfway up, the line is halfway to the record's column.
        const unsigned middle = by_time ? 40 + 360 / 2 : 400;
        for (const char* program : {GLIBC_MEMUSAGESTAT, MEMUSAGESTAT}) {
            SCOPED_TRACE(program);
            std::vector<std::string> args = {program, dir / "one.dat", dir / "one.png"};
            if (by_time) args.insert(args.begin() + 1, "-t");
            const Outcome drawn = run(args);
            ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
            Image image;
            ASSERT_TRUE(decode_png(dir / "one.png", image));
            bool crossed = false;
            for (unsigned x = middle - 3; x <= middle + 3; ++x)
                crossed |= image.near(x, value_row(2048, 4096), [](Rgb c) { return c.reddish(); });
            EXPECT_TRUE(crossed);
            EXPECT_GT(red_inside(image), 300u);
        }
    }
}

// The first thing a new user tries: memusage -p on a program whose only allocation is
// stdout's buffer.
TEST(GlibcCross, TheDriversPictureOfHelloWorldShowsItsAllocation) {
    ScratchDir dir;
    const Outcome profiled = run({MEMUSAGE_DRIVER, "-p", dir / "hello.png", FIXTURE_HELLO});
    ASSERT_EQ(profiled.exit_code, 0) << profiled.output;
    ASSERT_NE(profiled.output.find("hello, world"), std::string::npos) << profiled.output;
    Image image;
    ASSERT_TRUE(decode_png(dir / "hello.png", image));
    EXPECT_GT(red_inside(image), 300u);
}

// glibc's collector with -m subtracts every munmap but adds no anonymous mmap: its heap
// goes below zero and wraps to about 2^64. Ours says so, and draws what is plausible: the
// heap's climb to its real peak, on a scale that peak sets, and nothing where the counter
// had wrapped.
TEST(GlibcCross, AHeapCounterThatWrappedIsSaidAndLeftOut) {
    ScratchDir dir;
    const Outcome traced = run({FIXTURE_UNMAP}, {"LD_PRELOAD=" + std::string(GLIBC_LIBMEMUSAGE),
                                                 "MEMUSAGE_OUTPUT=" + (dir / "glibc.dat"),
                                                 "MEMUSAGE_NO_TIMER=1", "MEMUSAGE_TRACE_MMAP=1"});
    ASSERT_EQ(traced.exit_code, 0) << traced.output;
    // The file is what this test is about: glibc's header holds the wrapped peak.
    const std::string bytes = read_file(dir / "glibc.dat");
    ASSERT_GE(bytes.size(), 2 * sizeof(memusage::Record));
    memusage::Record header[2];
    std::memcpy(header, bytes.data(), sizeof header);
    ASSERT_GT(header[1].heap, uint64_t{1} << 63);

    const Outcome drawn = run({MEMUSAGESTAT, dir / "glibc.dat", dir / "ours.png"});
    ASSERT_EQ(drawn.exit_code, 0) << drawn.output;
    EXPECT_NE(drawn.output.find(dir / "glibc.dat" + ": 1002 of 2002 records hold an implausible "
                                                    "heap size"),
              std::string::npos)
        << drawn.output;
    expect_fixture_peak_in_the_middle(dir / "ours.png");
    Image image;
    ASSERT_TRUE(decode_png(dir / "ours.png", image));
    for (unsigned x : {500u, 700u}) {
        EXPECT_FALSE(image.near(x, 21, [](Rgb c) { return c.reddish(); })) << x;
        EXPECT_FALSE(image.near(x, 578, [](Rgb c) { return c.reddish(); })) << x;
    }
}
