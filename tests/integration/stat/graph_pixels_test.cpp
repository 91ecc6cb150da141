// SPDX-License-Identifier: MIT
// The curves are where the data puts them: decode the PNG and sample colours at the
// rows and columns the frame geometry gives for the data's values.
#include <gtest/gtest.h>

#include <random>

#include "stat_test_support.h"

using namespace stat_test;

namespace {

Image draw(const ScratchDir& dir, const DataFile& data, std::vector<std::string> options = {}) {
    data.write(dir / "data");
    std::vector<std::string> args = {MEMUSAGESTAT};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(dir / "data");
    args.push_back(dir / "out.png");
    const Outcome outcome = run(args);
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    Image image;
    EXPECT_TRUE(decode_png(dir / "out.png", image));
    return image;
}

}  // namespace

TEST(GraphPixels, DefaultSizeIs800x600) {
    ScratchDir dir;
    const Image image = draw(dir, flat_heap_and_stack());
    EXPECT_EQ(image.width, 800u);
    EXPECT_EQ(image.height, 600u);
}

TEST(GraphPixels, HeapRedOnTheLeftScaleStackGreenOnTheRight) {
    ScratchDir dir;
    const Image image = draw(dir, flat_heap_and_stack());
    const double heap_row = value_row(600000, 1000000);
    const double stack_row = value_row(300, 1000);
    for (unsigned x : {60u, 200u, 400u, 600u, 740u}) {
        SCOPED_TRACE("column " + std::to_string(x));
        EXPECT_TRUE(image.near(x, heap_row, [](Rgb c) { return c.reddish(); }));
        EXPECT_TRUE(image.near(x, stack_row, [](Rgb c) { return c.greenish(); }));
        EXPECT_FALSE(image.near(
            x, heap_row, [](Rgb c) { return c.greenish(); }, 5));
        EXPECT_TRUE(image.at(x, 100).white());  // nothing above the curves
        EXPECT_FALSE(image.near(x, value_row(600000 + 500, 1001000),
                                [](Rgb c) { return c.blackish(); }));  // no total without -T
    }
}

TEST(GraphPixels, TotalIsBlackAndSharesOneScaleWithT) {
    DataFile data = DataFile::with_peaks(1000, 1000, 2000, 500);
    for (int i = 0; i < 500; ++i) data.events.push_back(record(600, 300, i + 1));
    ScratchDir dir;
    const Image image = draw(dir, data, {"-T"});
    for (unsigned x : {100u, 400u, 700u}) {
        SCOPED_TRACE("column " + std::to_string(x));
        EXPECT_TRUE(image.near(x, value_row(900, 2000), [](Rgb c) { return c.blackish(); }));
        EXPECT_TRUE(image.near(x, value_row(600, 2000), [](Rgb c) { return c.reddish(); }));
        EXPECT_TRUE(image.near(x, value_row(300, 2000), [](Rgb c) { return c.greenish(); }));
    }
}

TEST(GraphPixels, OneSpikeAmongHundredsOfThousandsOfEventsIsDrawn) {
    const std::size_t count = 200000;
    DataFile data = DataFile::with_peaks(1000000, 1, 1000001, count);
    for (std::size_t i = 0; i < count; ++i) data.events.push_back(record(1000, 0, i + 1));
    data.events[count / 2] = record(1000000, 0, count / 2 + 1);
    ScratchDir dir;
    const Image image = draw(dir, data);
    const unsigned spike = event_column(count / 2, count);
    bool drawn = false;
    for (unsigned x = spike - 1; x <= spike + 1; ++x)
        drawn |= image.near(x, value_row(990000, 1000000), [](Rgb c) { return c.reddish(); });
    EXPECT_TRUE(drawn);
    EXPECT_FALSE(image.near(200, value_row(990000, 1000000), [](Rgb c) { return c.reddish(); }));
}

TEST(GraphPixels, TimeModePlacesEventsByTimeCallModeByCount) {
    // 900 events in the first tenth of the time at 0.2 of the peak, 100 events in the
    // other nine tenths at 0.7: the middle column tells the two modes apart.
    DataFile data = DataFile::with_peaks(1000000, 1, 1000001, 1000);
    for (int i = 0; i < 900; ++i) data.events.push_back(record(200000, 0, 1 + i / 9));
    for (int i = 0; i < 100; ++i) data.events.push_back(record(700000, 0, 100 + i * 9));
    const unsigned middle = 400;
    const auto red = [](Rgb c) { return c.reddish(); };

    ScratchDir dir;
    const Image by_calls = draw(dir, data);
    EXPECT_TRUE(by_calls.near(middle, value_row(200000, 1000000), red));
    EXPECT_FALSE(by_calls.near(middle, value_row(700000, 1000000), red));

    const Image by_time = draw(dir, data, {"-t"});
    EXPECT_TRUE(by_time.near(middle, value_row(700000, 1000000), red));
    EXPECT_FALSE(by_time.near(middle, value_row(200000, 1000000), red));
}

TEST(GraphPixels, SizesAreHonouredAndRaisedToTheMinimum) {
    ScratchDir dir;
    Image image = draw(dir, flat_heap_and_stack(), {"-x", "1234", "-y", "567"});
    EXPECT_EQ(image.width, 1234u);
    EXPECT_EQ(image.height, 567u);
    image = draw(dir, flat_heap_and_stack(), {"--x-size=10", "--y-size=10"});
    EXPECT_EQ(image.width, 100u);
    EXPECT_EQ(image.height, 80u);
    // Even tiny, the heap is there.
    bool red = false;
    for (unsigned x = 40; x < 60; ++x)
        red |= image.near(x, value_row(600000, 1000000, 80), [](Rgb c) { return c.reddish(); });
    EXPECT_TRUE(red);
}

TEST(GraphPixels, LargePictureKeepsTheGeometry) {
    ScratchDir dir;
    const Image image = draw(dir, flat_heap_and_stack(), {"-x", "4000", "-y", "3000"});
    ASSERT_EQ(image.width, 4000u);
    EXPECT_TRUE(
        image.near(2000, value_row(600000, 1000000, 3000), [](Rgb c) { return c.reddish(); }));
    EXPECT_TRUE(image.near(2000, value_row(300, 1000, 3000), [](Rgb c) { return c.greenish(); }));
}

TEST(GraphPixels, TimeStripMarksTheFirstHalfOfEveryTenthOfTheTime) {
    ScratchDir dir;
    const Image image = draw(dir, flat_heap_and_stack());
    // This data's time is linear: each tenth is 72 columns, the first 36 of them yellow.
    const auto yellow = [](Rgb c) { return c.r > 200 && c.g > 150 && c.b < 80; };
    for (unsigned tenth = 0; tenth < 10; ++tenth) {
        SCOPED_TRACE("tenth " + std::to_string(tenth));
        EXPECT_TRUE(yellow(image.at(40 + 72 * tenth + 10, 586)));
        EXPECT_FALSE(yellow(image.at(40 + 72 * tenth + 46, 586)));
    }
}

// Where glibc's memusagestat puts its (yellow-green) strip, ours puts its yellow one, by
// calls and by time, however the time is spread over the records.
TEST(GraphPixels, TimeStripIsYellowWhereGlibcsIs) {
    std::mt19937_64 random(11);
    for (std::size_t count : {7, 719, 1000, 5000}) {
        for (bool skewed : {false, true}) {
            DataFile data = DataFile::with_peaks(1000000, 1000, 1001000, 0);
            data.start = 1000;
            uint64_t time = data.start;
            for (std::size_t i = 0; i < count; ++i) {
                time += skewed ? 1 + i * i / count : 1 + random() % 1000;
                data.events.push_back(record(600000, 300, time));
            }
            data.end = time;
            ScratchDir dir;
            data.write(dir / "data");
            for (bool by_time : {false, true}) {
                SCOPED_TRACE(std::to_string(count) + (skewed ? " skewed" : " random") +
                             (by_time ? " by time" : " by calls"));
                auto arguments = [&](const std::string& program, const std::string& picture) {
                    std::vector<std::string> args = {program, dir / "data", dir / picture};
                    if (by_time) args.insert(args.begin() + 1, "-t");
                    return args;
                };
                ASSERT_EQ(run(arguments(GLIBC_MEMUSAGESTAT, "glibc.png")).exit_code, 0);
                const Outcome ours = run(arguments(MEMUSAGESTAT, "ours.png"));
                ASSERT_EQ(ours.exit_code, 0) << ours.output;
                Image theirs, mine;
                ASSERT_TRUE(decode_png(dir / "glibc.png", theirs));
                ASSERT_TRUE(decode_png(dir / "ours.png", mine));
                // Row 586 is below both programs' ticks.
                auto glibc_yellow = [&](unsigned x) {
                    const Rgb c = theirs.at(x, 586);
                    return c.r == 154 && c.g == 205 && c.b == 50;
                };
                auto our_yellow = [&](unsigned x) {
                    const Rgb c = mine.at(x, 586);
                    return c.r > 200 && c.g > 150 && c.b < 80;
                };
                for (unsigned x = 40; x < 760; ++x) {
                    // libgd fills a record narrower than a column one column to the
                    // left too: glibc's yellow runs start a pixel early in dense graphs.
                    if (glibc_yellow(x) && !our_yellow(x) && our_yellow(x + 1)) continue;
                    EXPECT_EQ(our_yellow(x), glibc_yellow(x)) << "column " << x;
                }
            }
        }
    }
}

TEST(GraphPixels, PngCarriesTitleSourceAndSoftwareText) {
    ScratchDir dir;
    flat_heap_and_stack().write(dir / "data");
    ASSERT_EQ(run({MEMUSAGESTAT, "-s", "my title", dir / "data", dir / "out.png"}).exit_code, 0);
    const std::string png = read_file(dir / "out.png");
    EXPECT_NE(png.find(std::string("tEXtTitle\0my title", 18)), std::string::npos);
    EXPECT_NE(png.find(std::string("tEXtSource\0", 11) + dir / "data"), std::string::npos);
    EXPECT_NE(png.find(std::string("tEXtSoftware\0memusagestat", 25)), std::string::npos);
}

TEST(GraphPixels, SvgAndPdfAreVectors) {
    ScratchDir dir;
    flat_heap_and_stack().write(dir / "data");
    ASSERT_EQ(run({MEMUSAGESTAT, dir / "data", dir / "out.svg"}).exit_code, 0);
    const std::string svg = read_file(dir / "out.svg");
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("width=\"800\""), std::string::npos);
    ASSERT_EQ(run({MEMUSAGESTAT, "-o", dir / "out.pdf", dir / "data"}).exit_code, 0);
    EXPECT_EQ(read_file(dir / "out.pdf").substr(0, 5), "%PDF-");
}
