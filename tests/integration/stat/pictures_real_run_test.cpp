// SPDX-License-Identifier: MIT
// The pictures drawn from recordings the collector itself wrote: the pictures' fixture (a
// pool, a buffer, a leak) and a two-thread fixture run under the built collector with
// MEMUSAGE_SITES and MEMUSAGE_EVENTS, then drawn by the built memusagestat.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <set>
#include <tuple>

#include "pictures_support.h"

using namespace stat_test;

namespace {

// A fixture's run under our collector: its sites file, its events file, and the heap peak
// its summary printed.
struct RecordedRun {
    std::string sites, events;
    uint64_t heap_peak = 0;
    Outcome outcome;
};

RecordedRun record_run(const ScratchDir& dir, const std::string& fixture, bool with_events = true) {
    RecordedRun recorded;
    recorded.sites = dir / "run.sites";
    recorded.events = dir / "run.events";
    std::vector<std::string> env = {"LD_PRELOAD=" OUR_LIBMEMUSAGE,
                                    "MEMUSAGE_SITES=" + recorded.sites, "MEMUSAGE_COLOR=never"};
    if (with_events) env.push_back("MEMUSAGE_EVENTS=" + recorded.events);
    recorded.outcome = run({fixture}, env);
    EXPECT_EQ(recorded.outcome.exit_code, 0) << recorded.outcome.output;
    const std::size_t at = recorded.outcome.output.find("heap peak: ");
    EXPECT_NE(at, std::string::npos) << recorded.outcome.output;
    if (at != std::string::npos)
        std::sscanf(recorded.outcome.output.c_str() + at, "heap peak: %" SCNu64,
                    &recorded.heap_peak);
    return recorded;
}

// Rows at the block map's right edge hatched red with the leak mark beside them.
unsigned leak_marked_rows(const Image& image) {
    const unsigned right = static_cast<unsigned>(kMap.right) - 1;
    unsigned rows = 0;
    for (unsigned y = static_cast<unsigned>(kMap.top); y < static_cast<unsigned>(kMap.bottom); ++y)
        rows += reddish(image.at(right + 4, y)) && image.near(right, y, reddish, 3);
    return rows;
}

// How many pixels of the plot are near each of the first `colours` palette colours.
std::vector<unsigned> palette_pixels(const Image& image, unsigned colours) {
    std::vector<unsigned> counts(colours, 0);
    for (unsigned y = static_cast<unsigned>(kMap.top) + 1; y < static_cast<unsigned>(kMap.bottom);
         ++y)
        for (unsigned x = static_cast<unsigned>(kMap.left) + 1;
             x < static_cast<unsigned>(kMap.right); ++x)
            for (unsigned c = 0; c < colours; ++c)
                counts[c] += near_colour(image.at(x, y), memusagestat::palette_colour(c), 12);
    return counts;
}

}  // namespace

TEST(RecordedPictures, TheBlockMapNamesTheFixturesSitesAndMarksItsLeak) {
    ScratchDir dir;
    const RecordedRun recorded = record_run(dir, FIXTURE_PICTURES);
    for (const char* out : {"map.svg", "map.png"}) {
        const Outcome outcome = stat_run({"--events=" + recorded.events,
                                          "--sites=" + recorded.sites, "--block-map=" + dir / out});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    }
    const std::string svg = read_file(dir / "map.svg");
    for (const auto& [function, marker] :
         {std::pair{"fill_pool", "pool"}, {"grow_buffer", "buffer"}, {"leak_block", "leak"}})
        EXPECT_NE(svg.find(std::string(">") + function + " (" + fixture_line(marker) + ")<"),
                  std::string::npos)
            << function;
    EXPECT_NE(svg.find(">never freed (leak)<"), std::string::npos);
    // The one block never freed (30000 bytes among 362144 at the peak) reaches the right
    // edge, hatched and marked; no other block is still alive there.
    EXPECT_GT(leak_marked_rows(png(dir / "map.png")), 0u);

    // Without the recording there is no block map: the run wrote no events file.
    ScratchDir bare;
    const RecordedRun unrecorded = record_run(bare, FIXTURE_PICTURES, false);
    const Outcome missing =
        stat_run({"--events=" + unrecorded.events, "--sites=" + unrecorded.sites,
                  "--block-map=" + bare / "m.png"});
    EXPECT_EQ(missing.exit_code, 1) << missing.output;
    { std::ofstream(bare / "empty.events"); }
    EXPECT_EQ(stat_run({"--events=" + bare / "empty.events", "--sites=" + unrecorded.sites,
                        "--block-map=" + bare / "m.png"})
                  .exit_code,
              1);
}

TEST(RecordedPictures, TheHeapBySiteReachesTheSummarysHeapPeak) {
    ScratchDir dir;
    const RecordedRun recorded = record_run(dir, FIXTURE_PICTURES);
    // The pool's 64 blocks of 4096 and the buffer's 100000 bytes at once.
    EXPECT_EQ(recorded.heap_peak, 64u * 4096 + 100000);
    for (const char* out : {"stacked.svg", "stacked.png"}) {
        const Outcome outcome = stat_run(
            {"--events=" + recorded.events, "--sites=" + recorded.sites, "--stacked=" + dir / out});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    }
    const std::string svg = read_file(dir / "stacked.svg");
    EXPECT_NE(svg.find(", highest " + memusagestat::bytes_text(recorded.heap_peak)),
              std::string::npos)
        << memusagestat::bytes_text(recorded.heap_peak);
    EXPECT_NE(svg.find(">fill_pool (" + fixture_line("pool") + ")<"), std::string::npos);
    EXPECT_NE(svg.find(">grow_buffer (" + fixture_line("buffer") + ")<"), std::string::npos);
    // The pool's band is the largest at the peak: the palette's first colour.
    const Image image = png(dir / "stacked.png");
    bool pool_band = false;
    for (unsigned x = 0; x < image.width && !pool_band; ++x)
        for (unsigned y = 0; y < image.height && !pool_band; ++y)
            pool_band = near_colour(image.at(x, y), memusagestat::palette_colour(0), 6);
    EXPECT_TRUE(pool_band);
}

TEST(RecordedPictures, TwoThreadsAreTwoColours) {
    ScratchDir dir;
    const RecordedRun recorded = record_run(dir, FIXTURE_THREADS);
    for (const char* out : {"map.svg", "map.png"}) {
        const Outcome outcome = stat_run(
            {"--events=" + recorded.events, "--block-map=" + dir / out, "--color-by=thread"});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    }
    const std::string svg = read_file(dir / "map.svg");
    EXPECT_NE(svg.find(">thread 1 (tid "), std::string::npos);
    EXPECT_NE(svg.find(">thread 2 (tid "), std::string::npos);
    const Image image = png(dir / "map.png");
    const std::vector<unsigned> pixels = palette_pixels(image, 2);
    EXPECT_GT(pixels[0], 50u);
    EXPECT_GT(pixels[1], 50u);

    // By size instead, the threads' equal blocks are one colour: the palette's second is gone.
    const Outcome by_size = stat_run(
        {"--events=" + recorded.events, "--block-map=" + dir / "size.png", "--color-by=size"});
    ASSERT_EQ(by_size.exit_code, 0) << by_size.output;
    const std::vector<unsigned> sized = palette_pixels(png(dir / "size.png"), 2);
    EXPECT_LT(std::min(sized[0], sized[1]), 10u);
}

// A program whose sites all end in its own allocator (Python's, HotSpot's, a project's
// xmalloc): the legends named eight sites "_PyObject_Malloc (obmalloc.c:2003)" alike. Sites
// that share their innermost frame are told apart by the first caller that differs, named
// where the place they share was (legends are narrow).
TEST(RecordedPictures, SitesOfOneAllocatorAreNamedByTheirCallers) {
    ScratchDir dir;
    const RecordedRun recorded = record_run(dir, FIXTURE_ALLOCATOR);
    for (const char* picture : {"--stacked=", "--block-map="}) {
        const std::string out = dir / "picture.svg";
        const Outcome outcome =
            stat_run({"--events=" + recorded.events, "--sites=" + recorded.sites, picture + out});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
        const std::string svg = read_file(out);
        for (const char* holder : {"load_names", "load_index", "load_cache"})
            EXPECT_NE(svg.find(std::string(">pool_alloc by ") + holder + "<"), std::string::npos)
                << picture << " " << holder;
    }
}

// Two calls on one line are one site in the report (its lines are the same), and so in the
// pictures: the legend named it twice, and counted one site more than the report.
TEST(RecordedPictures, ThePicturesCountTheSitesTheReportCounts) {
    ScratchDir dir;
    const RecordedRun recorded = record_run(dir, FIXTURE_ALLOCATOR);
    const Outcome report = stat_run({"--sites=" + recorded.sites});
    ASSERT_EQ(report.exit_code, 0) << report.output;
    ASSERT_NE(report.output.find("Allocation sites: 4;"), std::string::npos) << report.output;
    const std::string out = dir / "stacked.svg";
    const Outcome outcome =
        stat_run({"--events=" + recorded.events, "--sites=" + recorded.sites, "--stacked=" + out});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const std::string svg = read_file(out);
    size_t named = 0;
    for (size_t at = 0; (at = svg.find(">main (fixture_allocator.c:", at)) != std::string::npos;
         ++at)
        ++named;
    EXPECT_EQ(named, 1u) << svg;
    EXPECT_NE(svg.find(">(blocks of no known site)<"), std::string::npos)
        << "4 sites named, none other";
}

// A stack deeper than the picture has rows for names (python's, a hundred levels with its
// inlined calls, left a flame graph of 800x600 without a single name): the picture says
// how tall it must be to name its boxes, and at that height it does.
TEST(RecordedPictures, AFlameGraphTooDeepToNameSaysHowTallWouldNameIt) {
    ScratchDir dir;
    const RecordedRun recorded = record_run(dir, FIXTURE_DEEP, false);
    const Outcome low =
        stat_run({"--sites=" + recorded.sites, "--flame=" + dir / "low.svg", "-y", "400"});
    ASSERT_EQ(low.exit_code, 0) << low.output;
    const std::string svg = read_file(dir / "low.svg");
    EXPECT_EQ(svg.find(">descend<"), std::string::npos) << "rows too thin for names";
    const std::string hint = "too deep to name every box at this height: -y ";
    const size_t at = svg.find(hint);
    ASSERT_NE(at, std::string::npos) << svg;
    const unsigned height = static_cast<unsigned>(std::stoul(svg.substr(at + hint.size())));
    EXPECT_GT(height, 400u);
    const Outcome tall = stat_run(
        {"--sites=" + recorded.sites, "--flame=" + dir / "tall.svg", "-y", std::to_string(height)});
    ASSERT_EQ(tall.exit_code, 0) << tall.output;
    const std::string named = read_file(dir / "tall.svg");
    EXPECT_NE(named.find(">descend<"), std::string::npos);
    // The recursion is deeper than the collector keeps: its stack hangs from one root.
    EXPECT_NE(named.find(">[cut at 64 frames]<"), std::string::npos) << named;
    EXPECT_EQ(named.find(hint), std::string::npos);
}
