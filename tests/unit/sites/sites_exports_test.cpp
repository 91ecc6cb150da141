// SPDX-License-Identifier: MIT
// The leak report, folded stacks, DHAT JSON and durations, from profiles made up here
// (addresses in no module, so each frame is its address).
#include <gtest/gtest.h>

#include "exports/dhat_export.h"
#include "exports/folded_stacks.h"
#include "made_up_site.h"
#include "reports/duration.h"
#include "reports/leak_report.h"

namespace memusagestat {
namespace {

struct Shown {
    SitesProfile profile;
    Symbolizer symbolizer{std::vector<SitesModule>{}};
    std::vector<ShownSite> sites;
    explicit Shown(std::vector<AllocationSite> raw, uint32_t max_depth = 0) {
        profile.max_depth = max_depth;
        profile.sites = std::move(raw);
        sites = shown_sites(profile, symbolizer);
    }
};

TEST(LeakReport, ListsTheBlocksNeverFreedLargestFirst) {
    Shown shown({made_up_site({0x10, 0x20}, 3, 300, 1, 100, 0),
                 made_up_site({0x30}, 1, 50, 1, 50, 50), made_up_site({0x40}, 2, 5000, 0, 0, 0)});
    LeakReport report = leak_report(shown.profile, shown.sites, shown.symbolizer);
    EXPECT_EQ(report.blocks, 4u);
    EXPECT_EQ(report.bytes, 5200u);
    EXPECT_EQ(report.text,
              "Leaks: 5200 bytes in 4 blocks never freed, from 2 stacks (still allocated at "
              "exit; whether still reachable is not known)\n"
              "\n"
              "Bytes never freed, by stack, largest first:\n"
              "  #1 5000 bytes in 2 blocks\n"
              "       at 0x40\n"
              "  #2 200 bytes in 2 blocks\n"
              "       at 0x10\n"
              "       by 0x20\n");
}

// An attached process's sites (sites_format.h's kSinceAttach): the blocks allocated since
// the attach, still allocated at the detach, and a note that says so.
TEST(LeakReport, OfAnAttachedProcessSaysSinceTheAttachAndAtTheDetach) {
    Shown shown({made_up_site({0x10}, 2, 300, 1, 100, 0)});
    shown.profile.since_attach = true;
    LeakReport report = leak_report(shown.profile, shown.sites, shown.symbolizer);
    EXPECT_EQ(report.bytes, 200u);
    const std::string note =
        "\nNote: the collector was attached to the running process (memusage --attach): the "
        "figures are of the blocks allocated since the attach, and what was still allocated at "
        "the detach\n";
    EXPECT_EQ(report.text,
              "Leaks: 200 bytes in 1 block allocated since the attach and never freed, from 1 "
              "stack (still allocated at detach; whether still reachable is not known)\n"
              "\n"
              "Bytes never freed, by stack, largest first:\n"
              "  #1 200 bytes in 1 block\n"
              "       at 0x10\n" +
                  note);
    Shown freed({made_up_site({0x10}, 1, 100, 1, 100, 0)});
    freed.profile.since_attach = true;
    report = leak_report(freed.profile, freed.sites, freed.symbolizer);
    EXPECT_EQ(report.text,
              "No leaks: every block the program allocated since the attach was freed by the "
              "detach.\n" +
                  note);
}

TEST(LeakReport, SaysNoLeaksAndLeavesTheRuntimesBlocksOut) {
    Shown shown(
        {made_up_site({0x10}, 1, 10, 1, 10, 10), made_up_site({0x20}, 1, 4096, 0, 0, 4096)});
    shown.sites[1].kept_by_runtime = shown.sites[1].figures;  // as a stdio buffer's stack makes it
    shown.sites[1].kept_ids = shown.sites[1].ids;
    LeakReport report = leak_report(shown.profile, shown.sites, shown.symbolizer);
    EXPECT_EQ(report.blocks, 0u);
    EXPECT_EQ(report.text,
              "No leaks: every block the program allocated was freed.\n"
              "\n"
              "Not counted: 4096 bytes in 1 block the C and C++ runtimes keep until exit "
              "(stdio buffers, dlopen's and pthread_create's records, libstdc++'s exception "
              "pool)\n");
}

// One shown site of the program's blocks and the runtime's (getline's lines and the
// stream's buffer, both "main via getline"): the program's are leaks, the runtime's not.
TEST(LeakReport, CountsApartOnlyTheRuntimesPartOfASite) {
    Shown shown({made_up_site({0x10}, 1001, 124096, 0, 0, 0)});
    shown.sites[0].kept_by_runtime = made_up_site({0x10}, 1, 4096, 0, 0);
    LeakReport report = leak_report(shown.profile, shown.sites, shown.symbolizer);
    EXPECT_EQ(report.blocks, 1000u);
    EXPECT_EQ(report.bytes, 120000u);
    EXPECT_EQ(report.text,
              "Leaks: 120000 bytes in 1000 blocks never freed, from 1 stack (still allocated at "
              "exit; whether still reachable is not known)\n"
              "\n"
              "Bytes never freed, by stack, largest first:\n"
              "  #1 120000 bytes in 1000 blocks\n"
              "       at 0x10\n"
              "\n"
              "Not counted: 4096 bytes in 1 block the C and C++ runtimes keep until exit "
              "(stdio buffers, dlopen's and pthread_create's records, libstdc++'s exception "
              "pool)\n");
}

TEST(LeakReport, SaysWhenItsFiguresAreSampled) {
    Shown shown({made_up_site({0x10}, 1, 600000, 0, 0, 0)});
    shown.profile.sample_interval = 524288;
    LeakReport report = leak_report(shown.profile, shown.sites, shown.symbolizer);
    EXPECT_TRUE(report.text.ends_with(
        "\nNote: the figures are estimates from sampling every 524288 bytes on average: a leak "
        "the sample missed is not listed\n"))
        << report.text;
}

TEST(FoldedStacks, CutStacksShareOneRoot) {
    Shown shown({made_up_site({0x10, 0x20}, 1, 100, 0, 0, 100),
                 made_up_site({0x30, 0x40}, 1, 50, 0, 0, 50), made_up_site({0x50}, 1, 7, 0, 0, 7)},
                2);
    EXPECT_EQ(folded_stacks(shown.sites, FoldedMetric::peak),
              "0x50 7\n"
              "[cut at 2 frames];0x20;0x10 100\n"
              "[cut at 2 frames];0x40;0x30 50\n");
}

TEST(FoldedStacks, OutermostFirstOneLinePerStackWithoutZeros) {
    Shown shown({made_up_site({0x10, 0x20}, 3, 300, 1, 100, 70),
                 made_up_site({0x30, 0x20}, 1, 50, 1, 50, 0),
                 made_up_site({0x10, 0x20}, 1, 1, 0, 0, 1)});
    EXPECT_EQ(folded_stacks(shown.sites, FoldedMetric::peak), "0x20;0x10 71\n");
    EXPECT_EQ(folded_stacks(shown.sites, FoldedMetric::leaked), "0x20;0x10 201\n");
    EXPECT_EQ(folded_stacks(shown.sites, FoldedMetric::allocated), "0x20;0x10 301\n0x20;0x30 50\n");
    EXPECT_EQ(folded_stacks(shown.sites, FoldedMetric::blocks), "0x20;0x10 4\n0x20;0x30 1\n");
}

TEST(FoldedStacks, NamesTheMetrics) {
    FoldedMetric metric = FoldedMetric::peak;
    EXPECT_TRUE(parse_folded_metric("blocks", metric));
    EXPECT_EQ(metric, FoldedMetric::blocks);
    EXPECT_TRUE(parse_folded_metric("leaked", metric));
    EXPECT_EQ(metric, FoldedMetric::leaked);
    EXPECT_FALSE(parse_folded_metric("bytes", metric));
    EXPECT_FALSE(parse_folded_metric("", metric));
}

TEST(DhatJson, HasDhViewsFieldsWithoutLifetimes) {
    Shown shown({made_up_site({0x10, 0x20}, 3, 300, 1, 100, 70, 5)});
    shown.profile.pid = 77;
    std::string json = dhat_json(shown.profile, shown.sites, nullptr, "./prog \"x\"");
    for (const char* part :
         {"{\"dhatFileVersion\":2\n", ",\"mode\":\"heap\"\n", ",\"bklt\":false\n",
          ",\"bkacc\":false\n", ",\"tu\":\"\xc2\xb5s\"\n", ",\"Mtu\":\"s\"\n", ",\"tuth\":1000\n",
          ",\"cmd\":\"./prog \\\"x\\\"\"\n", ",\"pid\":77\n", ",\"te\":0\n",
          ",\"pps\":\n [{\"tb\":300,\"tbk\":3,\"gb\":70,\"eb\":200,\"ebk\":2,\"fs\":[1,2]}]\n",
          ",\"ftbl\":\n [\"[root]\"\n ,\"0x10\"\n ,\"0x20\"]\n}\n"})
        EXPECT_NE(json.find(part), std::string::npos) << part << " in:\n" << json;
}

TEST(DhatJson, LifetimesFillTheBlockFields) {
    Shown shown({made_up_site({0x10}, 2, 300, 1, 100, 300), made_up_site({0x20}, 1, 10, 1, 10, 0)});
    RunLifetimes lifetimes;
    lifetimes.duration = 2.5;
    lifetimes.peak_time = 0.001;
    lifetimes.sites.resize(2);
    lifetimes.sites[0].total_lifetime = 1.5;
    lifetimes.sites[0].max_bytes = 300;
    lifetimes.sites[0].max_blocks = 2;
    lifetimes.sites[0].bytes_at_peak = 300;
    lifetimes.sites[0].blocks_at_peak = 2;
    std::string json = dhat_json(shown.profile, shown.sites, &lifetimes, "prog");
    EXPECT_NE(json.find(",\"bklt\":true\n"), std::string::npos) << json;
    EXPECT_NE(json.find(",\"tg\":1000\n,\"te\":2500000\n"), std::string::npos) << json;
    EXPECT_NE(json.find("{\"tb\":300,\"tbk\":2,\"tl\":1500000,\"mb\":300,\"mbk\":2,\"gb\":300,"
                        "\"gbk\":2,\"eb\":200,\"ebk\":1,\"fs\":[1]}"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find(",\"verb\":\"Allocated\"\n"), std::string::npos) << json;
}

TEST(Duration, ReadsANumberAndAUnit) {
    EXPECT_DOUBLE_EQ(parse_duration("500ms").value_or(-1), 0.5);
    EXPECT_DOUBLE_EQ(parse_duration("2s").value_or(-1), 2);
    EXPECT_DOUBLE_EQ(parse_duration("1.5s").value_or(-1), 1.5);
    EXPECT_DOUBLE_EQ(parse_duration("100us").value_or(-1), 100e-6);
    EXPECT_DOUBLE_EQ(parse_duration("100\xc2\xb5s").value_or(-1), 100e-6);
    EXPECT_DOUBLE_EQ(parse_duration("250ns").value_or(-1), 250e-9);
    EXPECT_DOUBLE_EQ(parse_duration("2min").value_or(-1), 120);
    for (const char* bad : {"", "5", "s", "-1s", "1.5", "1 s", "1sec", "1e3ms", "abc", "1ss"})
        EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
}

TEST(Duration, FormatsForReading) {
    EXPECT_EQ(format_duration(1.5), "1.50 s");
    EXPECT_EQ(format_duration(0.3), "300.0 ms");
    EXPECT_EQ(format_duration(12e-6), "12 \xc2\xb5s");
}

}  // namespace
}  // namespace memusagestat
