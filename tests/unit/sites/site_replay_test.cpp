// SPDX-License-Identifier: MIT
// The event recording replayed against shown sites, on recordings built byte by byte: block
// lifetimes (a resize keeps the birth), each site's most bytes at once, its holdings at the
// heap's peak and at the end, the long-lived report, and recordings that do not fit.
#include "sites/site_replay.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "events_file_builder.h"
#include "exports/dhat_export.h"
#include "made_up_site.h"
#include "reports/long_lived_report.h"
#include "support/scratch_directory.h"

namespace memusagestat {
namespace {

using events_test::EventsFileBuilder;

// One shifted time unit is a microsecond: 1,000,000 units make the trailer's second.
constexpr uint64_t kSecond = 1000000;

class Recording {
  public:
    explicit Recording(EventsFileBuilder& built) {
        path_ = directory_.file("run.events");
        int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            EXPECT_EQ(write(fd, built.bytes().data(), built.bytes().size()),
                      static_cast<ssize_t>(built.bytes().size()));
            close(fd);
        }
    }
    const std::string& path() const { return path_; }

  private:
    test_support::ScratchDirectory directory_{"memusage-events-unit"};
    std::string path_;
};

struct Fixture {
    SitesProfile profile;
    Symbolizer symbolizer{std::vector<SitesModule>{}};
    std::vector<ShownSite> sites;
    EventsFileBuilder events;
    Fixture() {
        profile.pid = 4242;
        profile.sites = {made_up_site({0x10}, 2, 550, 2, 550, 0, 2),
                         made_up_site({0x20}, 1, 1000, 1, 1000, 0, 3),
                         made_up_site({0x30}, 1, 7, 0, 0, 0, 4)};
        sites = shown_sites(profile, symbolizer);
        // Site 2: A lives 300 µs; C is born at 300, moves and grows at 500 (the heap's
        // peak, 1500 bytes), is freed at 700000. Site 3: B lives 400 µs. Site 4: D is never
        // freed.
        events.clock(0, 0)
            .thread(1, 100)
            .allocate(100, 0x1000, 100, 2)
            .allocate(200, 0x2000, 1000, 3)
            .allocate(300, 0x3000, 50, 2)
            .release(400, 0x1000)
            .resize(500, 0x3000, 0x4000, 500)
            .release(600, 0x2000)
            .allocate(640, 0x5000, 7, 4)
            .release(700000, 0x4000)
            .trailer(kSecond, 1000000000);
    }
};

TEST(SiteReplay, LifetimesPeaksAndEndsPerSite) {
    Fixture f;
    Recording recording(f.events);
    RunLifetimes lifetimes;
    ASSERT_EQ(replay_sites(recording.path(), f.profile, f.sites, 0.5, true, lifetimes).error(), "");
    EXPECT_EQ(lifetimes.problem, "");
    EXPECT_NEAR(lifetimes.duration, 1.0, 1e-9);
    EXPECT_NEAR(lifetimes.peak_time, 500e-6, 1e-9);
    EXPECT_EQ(lifetimes.heap_peak, 1500u);
    ASSERT_EQ(lifetimes.sites.size(), 3u);

    const SiteLifetime& two = lifetimes.sites[0];
    EXPECT_EQ(two.blocks, 2u);
    EXPECT_NEAR(two.total_lifetime, 300e-6 + (700000 - 300) * 1e-6, 1e-9);
    EXPECT_EQ(two.max_bytes, 500u);
    EXPECT_EQ(two.max_blocks, 1u);
    EXPECT_EQ(two.bytes_at_peak, 500u);
    EXPECT_EQ(two.blocks_at_peak, 1u);
    EXPECT_EQ(two.blocks_at_end, 0u);
    EXPECT_EQ(two.long_lived_blocks, 1u);  // C, born before its resize
    EXPECT_EQ(two.long_lived_bytes, 500u);
    EXPECT_EQ(two.long_lived_freed, 1u);
    EXPECT_NEAR(two.long_lived_longest, 0.6997, 1e-9);

    const SiteLifetime& three = lifetimes.sites[1];
    EXPECT_NEAR(three.total_lifetime, 400e-6, 1e-9);
    EXPECT_EQ(three.bytes_at_peak, 1000u);
    EXPECT_EQ(three.max_bytes, 1000u);
    EXPECT_EQ(three.long_lived_blocks, 0u);

    const SiteLifetime& four = lifetimes.sites[2];
    EXPECT_EQ(four.bytes_at_peak, 0u) << "born after the peak";
    EXPECT_EQ(four.bytes_at_end, 7u);
    EXPECT_EQ(four.blocks_at_end, 1u);
    EXPECT_EQ(four.long_lived_blocks, 1u);
    EXPECT_EQ(four.long_lived_freed, 0u);
    EXPECT_NEAR(four.long_lived_longest, 1.0 - 640e-6, 1e-9);
}

TEST(SiteReplay, TheLongLivedReport) {
    Fixture f;
    Recording recording(f.events);
    RunLifetimes lifetimes;
    ASSERT_EQ(replay_sites(recording.path(), f.profile, f.sites, 0.5, false, lifetimes).error(),
              "");
    EXPECT_EQ(long_lived_report(f.profile, f.sites, lifetimes, 0.5, f.symbolizer),
              "Long-lived blocks: 2 blocks (507 bytes) lived longer than 500.0 ms (of a 1.00 s "
              "run), from 2 stacks\n"
              "\n"
              "Bytes in blocks that lived longer than 500.0 ms, by stack, largest first:\n"
              "  #1 500 bytes in 1 block (all freed); lifetime mean 699.7 ms, longest 699.7 ms\n"
              "       at 0x10\n"
              "  #2 7 bytes in 1 block (never freed); lifetime mean 999.4 ms, longest 999.4 ms\n"
              "       at 0x30\n");
    ASSERT_EQ(replay_sites(recording.path(), f.profile, f.sites, 2.0, false, lifetimes).error(),
              "");
    EXPECT_EQ(long_lived_report(f.profile, f.sites, lifetimes, 2.0, f.symbolizer),
              "No long-lived blocks: none lived longer than 2.00 s (of a 1.00 s run).\n");
}

TEST(SiteReplay, DhatJsonGetsTheLifetimes) {
    Fixture f;
    Recording recording(f.events);
    RunLifetimes lifetimes;
    ASSERT_EQ(
        replay_sites(recording.path(), f.profile, f.sites, std::nullopt, true, lifetimes).error(),
        "");
    std::string json = dhat_json(f.profile, f.sites, &lifetimes, "prog");
    EXPECT_NE(json.find(",\"tg\":500\n,\"te\":1000000\n"), std::string::npos) << json;
    EXPECT_NE(json.find("{\"tb\":550,\"tbk\":2,\"tl\":700000,\"mb\":500,\"mbk\":1,\"gb\":500,"
                        "\"gbk\":1,\"eb\":0,\"ebk\":0,\"fs\":[1]}"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("{\"tb\":7,\"tbk\":1,\"tl\":999360,\"mb\":7,\"mbk\":1,\"gb\":0,\"gbk\":0,"
                        "\"eb\":7,\"ebk\":1,\"fs\":[3]}"),
              std::string::npos)
        << json;
}

TEST(SiteReplay, ARecordingOfAnotherRunOrWithoutSitesIsRefused) {
    Fixture f;
    f.profile.pid = 1;
    Recording recording(f.events);
    RunLifetimes lifetimes;
    EXPECT_NE(replay_sites(recording.path(), f.profile, f.sites, 0.5, true, lifetimes)
                  .error()
                  .find("is the recording of another run (process 4242; the sites file's is 1)"),
              std::string::npos);

    EventsFileBuilder no_sites(0, 1);
    no_sites.clock(0, 0).allocate(1, 0x10, 1, 0).trailer(kSecond, 1000000000);
    Recording other(no_sites);
    EXPECT_NE(replay_sites(other.path(), f.profile, f.sites, 0.5, true, lifetimes)
                  .error()
                  .find("was recorded without allocation sites"),
              std::string::npos);
}

TEST(SiteReplay, AKilledRunsRecordingSaysSo) {
    Fixture f;
    EventsFileBuilder cut;
    cut.clock(0, 0)
        .allocate(100, 0x1000, 100, 2)
        .clock(2000, 2000000)
        .allocate(2100, 0x2000, 1000, 3);
    Recording recording(cut);
    RunLifetimes lifetimes;
    ASSERT_EQ(replay_sites(recording.path(), f.profile, f.sites, 0.5, true, lifetimes).error(), "");
    EXPECT_NE(lifetimes.problem.find("incomplete"), std::string::npos) << lifetimes.problem;
    EXPECT_EQ(lifetimes.sites[0].blocks_at_end, 1u);
    EXPECT_EQ(lifetimes.sites[1].blocks_at_end, 1u);
}

}  // namespace
}  // namespace memusagestat
