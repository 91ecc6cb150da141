// Compatibility both ways: ours draws what glibc's collector wrote, glibc's
// memusagestat draws what our collector and our tools wrote.
#include <gtest/gtest.h>

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
