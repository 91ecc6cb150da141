// SPDX-License-Identifier: MIT
// The pictures of where and when drawn by the built memusagestat from recordings with known
// features (made with the tests' one encoder of recordings, and a fixture's real sites file): the
// features must be at the places the data puts them, and an SVG must say its labels.
#include <gtest/gtest.h>

#include <cmath>

#include "events_file_builder.h"
#include "pictures/block_map.h"
#include "pictures/heap_by_site.h"
#include "pictures_support.h"
#include "sites/site_names.h"

using namespace stat_test;
using events_test::EventsFileBuilder;

namespace {

// Three blocks of 4 KiB one above the other from 0x10000: A freed halfway, B churned
// (allocated and freed again and again), L allocated at a quarter and never freed.
EventsFileBuilder leak_recording(unsigned events = 4000) {
    EventsFileBuilder recording;
    recording.clock(100, 1000);
    recording.thread(1, 11);
    uint64_t time = 100;
    recording.allocate(++time, 0x10000, 0x1000, 0);
    unsigned made = 1;
    bool b_alive = false;
    while (made < events) {
        ++time;
        if (made == events / 4) {
            recording.allocate(time, 0x12000, 0x1000, 0);
        } else if (made == events / 2) {
            recording.release(time, 0x10000);
        } else if (b_alive) {
            recording.release(time, 0x11000);
            b_alive = false;
        } else {
            recording.allocate(time, 0x11000, 0x1000, 0);
            b_alive = true;
        }
        ++made;
    }
    recording.trailer(time + 1, 10000);
    return recording;
}

}  // namespace

TEST(BlockMap, ABlockNeverFreedReachesTheRightEdgeInRed) {
    ScratchDir dir;
    ASSERT_TRUE(leak_recording().write(dir / "run.events"));
    const Outcome outcome =
        stat_run({"--events=" + dir / "run.events", "--block-map=" + dir / "map.png"});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const Image image = png(dir / "map.png");
    const unsigned a = map_row(0x10800, 0x10000, 0x13000);
    const unsigned l = map_row(0x12800, 0x10000, 0x13000);
    const unsigned right = static_cast<unsigned>(kMap.right) - 1;
    bool hatched = false;  // the leak reaches the edge, hatched in red
    for (unsigned y = l - 3; y <= l + 3; ++y) hatched |= reddish(image.at(right, y));
    EXPECT_TRUE(hatched);
    EXPECT_FALSE(image.at(right, l + 10).white());
    EXPECT_TRUE(reddish(image.at(right + 4, l)));         // and is marked beside it
    EXPECT_TRUE(image.at(right, a).white());              // A was freed halfway
    EXPECT_FALSE(image.at(map_column(0.25), a).white());  // and lived before
    EXPECT_FALSE(reddish(image.at(map_column(0.25), a)));
    EXPECT_TRUE(image.at(map_column(0.1), l).white());  // L did not exist yet
    EXPECT_TRUE(image.at(right + 4, a).white());        // no leak mark at A
}

TEST(BlockMap, APoolIsOneDenseBandAndFarRegionsAreFoldedTogether) {
    // A pool of 64 slots of 64 bytes churned at random, and one block 2^47 bytes away.
    EventsFileBuilder recording;
    recording.clock(10, 100);
    recording.thread(1, 11);
    uint64_t time = 10;
    const uint64_t pool = 0x20000, far = 0x7fff00000000;
    recording.allocate(++time, far, 4096, 0);
    std::vector<bool> alive(64, false);
    uint64_t state = 7;
    for (int i = 0; i < 20000; ++i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        const uint64_t slot = (state >> 33) % 64;
        if (alive[slot])
            recording.release(++time, pool + slot * 64);
        else
            recording.allocate(++time, pool + slot * 64, 64, 0);
        alive[slot] = !alive[slot];
    }
    recording.trailer(time + 1, 1000);
    ScratchDir dir;
    ASSERT_TRUE(recording.write(dir / "run.events"));
    const Outcome outcome = stat_run(
        {"--events=" + dir / "run.events", "--block-map=" + dir / "map.png", "--color-by=size"});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const Image image = png(dir / "map.png");
    // Two regions of the same span share the height but for the fold between them: the
    // pool fills the lower half densely (each slot is in use about half the time, so most
    // pixels, and at every column some), and the fold between is marked.
    const double half = (kMap.height() - memusagestat::kFoldRows) / 2;
    unsigned coloured = 0, sampled = 0;
    for (double f = 0.01; f < 1; f += 0.02) {
        bool column = false;
        for (double r = 0.02; r < 1; r += 0.02) {
            ++sampled;
            const bool here =
                !image.at(map_column(f), static_cast<unsigned>(kMap.bottom - r * half)).white();
            coloured += here;
            column |= here;
        }
        EXPECT_TRUE(column) << f;
    }
    EXPECT_GT(coloured, sampled * 6 / 10);
    EXPECT_FALSE(image.at(map_column(0.5), static_cast<unsigned>(kMap.bottom - half - 4)).white());
    // The far block: the upper half, from start to end.
    EXPECT_FALSE(image.at(map_column(0.5), static_cast<unsigned>(kMap.top + half / 2)).white());
}

TEST(BlockMap, TwoPhasesLeaveAGapByTime) {
    EventsFileBuilder recording;
    for (uint64_t phase_start : {1000u, 3000u}) {
        recording.clock(phase_start, phase_start * 10);
        recording.thread(1, 11);
        for (uint64_t i = 0; i < 500; ++i) {
            recording.allocate(phase_start + 2 * i, 0x40000 + (i % 8) * 256, 256, 0);
            recording.release(phase_start + 2 * i + 1, 0x40000 + (i % 8) * 256);
        }
    }
    recording.trailer(4000, 40000);
    ScratchDir dir;
    ASSERT_TRUE(recording.write(dir / "run.events"));
    const Outcome outcome =
        stat_run({"-t", "--events=" + dir / "run.events", "--block-map=" + dir / "map.png"});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const Image image = png(dir / "map.png");
    // The run spans 1000..4000: the phases are the first and last thirds.
    auto column_coloured = [&](double fraction) {
        for (unsigned y = static_cast<unsigned>(kMap.top); y < kMap.bottom; ++y)
            if (!image.at(map_column(fraction), y).white()) return true;
        return false;
    };
    EXPECT_TRUE(column_coloured(0.15));
    EXPECT_FALSE(column_coloured(0.5));
    EXPECT_FALSE(column_coloured(0.6));
    EXPECT_TRUE(column_coloured(0.85));
}

TEST(BlockMap, TwoThreadsAreColouredApartAndNamedInTheLegend) {
    EventsFileBuilder recording;
    recording.clock(10, 100);
    uint64_t time = 10;
    recording.thread(1, 501);
    recording.thread_name(1, "main");
    recording.allocate(++time, 0x50000, 0x1000, 0);
    recording.thread(2, 502);
    recording.thread_name(2, "worker");
    recording.allocate(++time, 0x51000, 0x1000, 0);
    for (int i = 0; i < 100; ++i) {
        recording.switch_to(1 + i % 2, 501 + i % 2);
        recording.allocate(++time, 0x60000 + i * 16, 16, 0);
        recording.release(++time, 0x60000 + i * 16);
    }
    // Freed, so that they are not tinted as leaks.
    recording.release(++time, 0x51000);
    recording.switch_to(1, 501);
    recording.release(++time, 0x50000);
    recording.trailer(time + 1, 1000);
    ScratchDir dir;
    ASSERT_TRUE(recording.write(dir / "run.events"));
    for (const char* out : {"map.png", "map.svg"}) {
        const Outcome outcome = stat_run(
            {"--events=" + dir / "run.events", "--block-map=" + dir / out, "--color-by=thread"});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    }
    const Image image = png(dir / "map.png");
    // One region 0x50000..0x60000 (the churn at 0x60000 is 64 KiB above: the same region
    // only if within a granule; it is), the two long blocks at its bottom.
    const double x = map_column(0.6);
    const unsigned main_row = map_row(0x50800, 0x50000, 0x60640);
    const unsigned worker_row = map_row(0x51800, 0x50000, 0x60640);
    const Rgb main_colour = image.at(static_cast<unsigned>(x), main_row);
    const Rgb worker_colour = image.at(static_cast<unsigned>(x), worker_row);
    EXPECT_TRUE(near_colour(main_colour, memusagestat::palette_colour(0)))
        << int(main_colour.r) << "," << int(main_colour.g) << "," << int(main_colour.b);
    EXPECT_TRUE(near_colour(worker_colour, memusagestat::palette_colour(1)))
        << int(worker_colour.r) << "," << int(worker_colour.g) << "," << int(worker_colour.b);
    const std::string svg = read_file(dir / "map.svg");
    EXPECT_NE(svg.find(">thread 1 (tid 501, main)<"), std::string::npos);
    EXPECT_NE(svg.find(">thread 2 (tid 502, worker)<"), std::string::npos);
    EXPECT_NE(svg.find(">never freed (leak)<"), std::string::npos);
}

namespace {

// The fixture run under our collector with a sites file, and the sites' ids by function.
struct FixtureSites {
    std::string path;
    uint32_t pool = 0, buffer = 0, leak = 0;
    std::string pool_label, buffer_label;
};

FixtureSites run_fixture(const ScratchDir& dir) {
    FixtureSites sites;
    sites.path = dir / "run.sites";
    const Outcome outcome =
        run({FIXTURE_PICTURES}, {"LD_PRELOAD=" OUR_LIBMEMUSAGE, "MEMUSAGE_SITES=" + sites.path});
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    memusagestat::SitesProfile profile;
    EXPECT_EQ(memusagestat::read_sites_file(sites.path, profile).error(), "");
    memusagestat::Symbolizer symbolizer(profile.modules);
    const memusagestat::SiteNames names(profile, symbolizer);
    for (const memusagestat::SiteGroup& group : names.groups()) {
        if (group.function == "fill_pool") {
            sites.pool = group.ids.front();
            sites.pool_label = group.label();
        }
        if (group.function == "grow_buffer") {
            sites.buffer = group.ids.front();
            sites.buffer_label = group.label();
        }
        if (group.function == "leak_block") sites.leak = group.ids.front();
    }
    EXPECT_NE(sites.pool, 0u);
    EXPECT_NE(sites.buffer, 0u);
    EXPECT_NE(sites.leak, 0u);
    return sites;
}

}  // namespace

TEST(FlameGraph, WidthsAreTheMetricAndTheSvgNamesTheFunctions) {
    ScratchDir dir;
    const FixtureSites sites = run_fixture(dir);
    for (const char* out : {"peak.png", "peak.svg"}) {
        const Outcome outcome = stat_run({"--sites=" + sites.path, "--flame=" + dir / out});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    }
    const Outcome leaks = stat_run(
        {"--sites=" + sites.path, "--flame=" + dir / "leaks.svg", "--flame-metric=leaked"});
    ASSERT_EQ(leaks.exit_code, 0) << leaks.output;

    const std::string peak = read_file(dir / "peak.svg");
    EXPECT_NE(peak.find(">fill_pool<"), std::string::npos);
    EXPECT_NE(peak.find(">grow_buffer<"), std::string::npos);
    EXPECT_NE(peak.find(">main<"), std::string::npos);
    EXPECT_EQ(peak.find(">leak_block<"), std::string::npos);  // held nothing at the peak
    EXPECT_NE(peak.find("Bytes held at the heap peak by call stack: "), std::string::npos);
    const std::string leaked = read_file(dir / "leaks.svg");
    EXPECT_NE(leaked.find(">leak_block<"), std::string::npos);
    EXPECT_EQ(leaked.find(">fill_pool<"), std::string::npos);

    // Icicle: "all" spans the width on the first row, main under it; fill_pool (262144
    // bytes of 362144) is the larger box on the left of the third row.
    const Image image = png(dir / "peak.png");
    const unsigned all_row = 31, third_row = 67;  // rows of 18 pixels under the title
    for (unsigned x : {15u, 400u, 785u}) EXPECT_FALSE(image.at(x, all_row).white()) << x;
    const unsigned split = 10 + static_cast<unsigned>(780.0 * 262144 / 362144);
    EXPECT_FALSE(image.at(split - 10, third_row).white());
    EXPECT_FALSE(image.at(split + 10, third_row).white());
    EXPECT_TRUE(image.at(split - 10, third_row + 18).white() ||
                image.at(split + 10, third_row + 18).white());
}

TEST(HeapBySite, BandsAreTheSitesStackedWithTheirNamesInTheLegend) {
    ScratchDir dir;
    const FixtureSites sites = run_fixture(dir);
    // The pool's site holds 3000 bytes throughout, the buffer's grows to 1000 on top.
    EventsFileBuilder recording;
    recording.clock(10, 100);
    recording.thread(1, 11);
    uint64_t time = 10;
    for (int i = 0; i < 3; ++i) recording.allocate(++time, 0x10000 + i * 1000, 1000, sites.pool);
    for (int i = 0; i < 1000; ++i) {
        recording.allocate(++time, 0x20000, 1000, sites.buffer);
        recording.release(++time, 0x20000);
    }
    recording.allocate(++time, 0x20000, 1000, sites.buffer);
    recording.trailer(time + 1, 1000);
    ASSERT_TRUE(recording.write(dir / "run.events"));
    for (const char* out : {"stacked.png", "stacked.svg"}) {
        const Outcome outcome = stat_run(
            {"--events=" + dir / "run.events", "--sites=" + sites.path, "--stacked=" + dir / out});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    }
    const std::string svg = read_file(dir / "stacked.svg");
    EXPECT_NE(svg.find(">fill_pool (" + fixture_line("pool") + ")<"), std::string::npos)
        << svg.size();
    EXPECT_NE(svg.find(">grow_buffer (" + fixture_line("buffer") + ")<"), std::string::npos);
    EXPECT_NE(svg.find("Heap by allocation site over calls: "), std::string::npos);

    // The scale's top is 4000 bytes: the pool's band from 0 to 3/4 of the height, the
    // buffer's above it, while the buffer lives.
    const memusagestat::PlotFrame frame = memusagestat::stacked_frame(800, 600);
    const Image image = png(dir / "stacked.png");
    const unsigned x = static_cast<unsigned>(frame.left + frame.width() * 0.5);
    const auto row = [&](double fraction) {
        return static_cast<unsigned>(frame.bottom - fraction * frame.height());
    };
    // The sites rank by bytes at the peak in the fixture's run: the pool first.
    EXPECT_TRUE(near_colour(image.at(x, row(0.3)), memusagestat::palette_colour(0), 10));
    EXPECT_TRUE(near_colour(image.at(x, row(0.9)), memusagestat::palette_colour(1), 10));
    EXPECT_TRUE(image.at(x, frame.top + 2).white() ||
                !near_colour(image.at(x, frame.top + 2), memusagestat::palette_colour(0)));
}

TEST(Pictures, BadRecordingsGetAMessageOrAPictureSayingWhatIsMissing) {
    ScratchDir dir;
    // Empty, foreign, cut short.
    { std::ofstream(dir / "empty.events"); }
    { std::ofstream(dir / "foreign.events") << "P6\n1 1\n255\n..."; }
    ASSERT_TRUE(leak_recording().write(dir / "cut.events", leak_recording().bytes().size() / 2));
    for (const char* name : {"empty.events", "foreign.events"}) {
        for (const char* picture : {"--stacked=", "--block-map="}) {
            const Outcome outcome = stat_run({"--events=" + dir / name, picture + dir / "out.png"});
            EXPECT_EQ(outcome.exit_code, 1) << name << outcome.output;
            EXPECT_NE(outcome.output.find(name), std::string::npos) << outcome.output;
        }
    }
    const Outcome cut =
        stat_run({"--events=" + dir / "cut.events", "--block-map=" + dir / "cut.png",
                  "--stacked=" + dir / "cut_stacked.png"});
    EXPECT_EQ(cut.exit_code, 0) << cut.output;
    EXPECT_NE(cut.output.find("incomplete"), std::string::npos) << cut.output;
    png(dir / "cut.png");

    // Without a sites file, or recorded without sites: by thread, and the picture says so.
    const Outcome by_thread =
        stat_run({"--events=" + dir / "cut.events", "--block-map=" + dir / "thread.svg"});
    EXPECT_EQ(by_thread.exit_code, 0) << by_thread.output;
    EXPECT_NE(read_file(dir / "thread.svg").find("no sites file (--sites): by thread"),
              std::string::npos);
    EventsFileBuilder without_sites(0, 1);
    without_sites.clock(1, 1);
    without_sites.allocate(2, 0x1000, 10, 0);
    without_sites.trailer(3, 3);
    ASSERT_TRUE(without_sites.write(dir / "nosites.events"));
    const FixtureSites sites = run_fixture(dir);
    const Outcome recorded_without =
        stat_run({"--events=" + dir / "nosites.events", "--sites=" + sites.path,
                  "--stacked=" + dir / "nosites.svg"});
    EXPECT_EQ(recorded_without.exit_code, 0) << recorded_without.output;
    EXPECT_NE(read_file(dir / "nosites.svg").find("recorded without sites: by thread"),
              std::string::npos);

    // No events at all: a picture saying so.
    EventsFileBuilder nothing;
    nothing.clock(1, 1);
    nothing.trailer(2, 2);
    ASSERT_TRUE(nothing.write(dir / "nothing.events"));
    for (const char* picture : {"--stacked=", "--block-map="}) {
        const Outcome outcome =
            stat_run({"--events=" + dir / "nothing.events", picture + dir / "nothing.svg"});
        EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
        EXPECT_NE(read_file(dir / "nothing.svg").find("the recording holds no events"),
                  std::string::npos)
            << picture;
    }

    // Options that do not go together.
    EXPECT_EQ(stat_run({"--flame=" + dir / "f.png"}).exit_code, 1);
    EXPECT_EQ(stat_run({"--stacked=" + dir / "f.png"}).exit_code, 1);
    EXPECT_EQ(stat_run({"--sites=x", "--flame=f.png", "--flame-metric=most"}).exit_code, 1);
    EXPECT_EQ(stat_run({"--events=x", "--block-map=f.png", "--color-by=mood"}).exit_code, 1);
    EXPECT_EQ(stat_run({"--color-by=size", "data"}).exit_code, 1);
    // A block map's buffer grows with its pixels: past 16 million, refused before reading.
    const Outcome huge = stat_run({"-x", "5000", "-y", "5000", "--events=" + dir / "cut.events",
                                   "--block-map=" + dir / "huge.png"});
    EXPECT_EQ(huge.exit_code, 1);
    EXPECT_NE(huge.output.find("too large for a block map"), std::string::npos) << huge.output;
}

TEST(Pictures, EveryPictureDrawsFrom640x480To4000x3000) {
    ScratchDir dir;
    const FixtureSites sites = run_fixture(dir);
    ASSERT_TRUE(leak_recording().write(dir / "run.events"));
    for (const auto& [x, y] : {std::pair{"640", "480"}, std::pair{"4000", "3000"}}) {
        const Outcome outcome =
            stat_run({"-x", x, "-y", y, "--sites=" + sites.path, "--events=" + dir / "run.events",
                      "--flame=" + dir / "f.png", "--stacked=" + dir / "s.png",
                      "--block-map=" + dir / "b.pdf"});
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
        for (const char* name : {"f.png", "s.png"}) {
            const Image image = png(dir / name);
            EXPECT_EQ(image.width, static_cast<unsigned>(std::stoi(x)));
            EXPECT_EQ(image.height, static_cast<unsigned>(std::stoi(y)));
        }
        EXPECT_EQ(read_file(dir / "b.pdf").substr(0, 5), "%PDF-");
    }
}
