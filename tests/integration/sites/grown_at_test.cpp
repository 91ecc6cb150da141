// SPDX-License-Identifier: MIT
// Where a block grew: a block allocated in one function and grown by realloc in another is
// counted at its allocation's site, and every report that lists it names the growing
// realloc beside it ("grown at"): --sites (peak and leaks), --leaks, --long-lived, and the
// HTML report's sites.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::Scratch;

const std::string kSource = "sites_grown.c";

// The entry of `section` allocated at make_buffer, or fails.
const Entry& made_entry(const std::vector<Entry>& entries, const std::string& section,
                        const std::string& text) {
    const Entry* entry = find_entry(entries, section, location(kSource, "make"));
    if (entry == nullptr) {
        ADD_FAILURE() << "no " << section << " entry at make_buffer in\n" << text;
        static const Entry none;
        return none;
    }
    return *entry;
}

TEST(GrownAt, EveryReportNamesWhereABlockGrew) {
    Scratch scratch;
    const std::string html = scratch / "report.html";
    Outcome run = run_memusage(
        {"--color=never", "--sites", "--leaks", "--long-lived=100ms", "--html=" + html,
         "--sites-file=" + scratch / "run.sites", fixture("sites_fixture_grown"), "300"},
        scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    const std::string grown = "grown at grow_buffer (" + location(kSource, "grow") + ")";
    const std::vector<Entry> entries = entries_of(run.err);

    // --sites: at the peak, the kept block (1 MiB) is held, grown at grow_buffer; the block
    // grown and freed before the peak is not.
    const Entry& peak = made_entry(entries, kPeakRanking, run.err);
    ASSERT_EQ(peak.grown.size(), 1u) << peak.text() << run.err;
    EXPECT_EQ(peak.grown[0], grown + ": 1048576 bytes in 1 block") << run.err;
    EXPECT_TRUE(peak.header.find("1048576 bytes") != std::string::npos) << peak.header;

    // --leaks (printed once, with --sites): the 1 MiB leak, grown at grow_buffer.
    EXPECT_NE(run.err.find("Leaks: 1048576 bytes in 1 block never freed"), std::string::npos)
        << run.err;
    const size_t leaks = run.err.find("Bytes never freed, by stack");
    ASSERT_NE(leaks, std::string::npos) << run.err;
    const std::vector<Entry> leak_entries = entries_of(run.err.substr(leaks));
    const Entry& leak = made_entry(leak_entries, "Bytes never freed", run.err);
    ASSERT_EQ(leak.grown.size(), 1u) << run.err;
    EXPECT_EQ(leak.grown[0], grown + ": 1048576 bytes in 1 block") << run.err;

    // --long-lived: the kept block lived the run's length; where it grew is said of the
    // blocks still allocated at exit.
    const size_t long_lived = run.err.find("Long-lived blocks: ");
    ASSERT_NE(long_lived, std::string::npos) << run.err;
    const std::string lived = run.err.substr(long_lived);
    EXPECT_NE(lived.find(grown + ": 1048576 bytes in 1 block still allocated at exit"),
              std::string::npos)
        << lived;

    // A buffer grown by the call that allocated it grew nowhere else.
    const Entry* same = find_entry(entries, kAllocatedRanking, location(kSource, "same"));
    ASSERT_NE(same, nullptr) << run.err;
    EXPECT_TRUE(same->grown.empty()) << same->text();
    // The grown block stays at its site: 100 bytes allocated there, and the growth
    // (1048476 bytes) counted as allocated there too, in its one call.
    const Entry& made = made_entry(entries, kAllocatedRanking, run.err);
    EXPECT_EQ(made.header, "#1 1048576 bytes in 1 call") << run.err;
    // The block grown and freed before the peak held nothing at the peak or at exit: no
    // line, in any report, says where it grew.
    size_t lines = 0;
    for (size_t at = run.err.find("grown at "); at != std::string::npos;
         at = run.err.find("grown at ", at + 1))
        ++lines;
    EXPECT_EQ(lines, 3u) << run.err;  // at the peak, in the leaks, in the long-lived

    // The HTML report: the site's grown list, and its leak.
    const nlohmann::json data = report_data(html);
    ASSERT_TRUE(data.is_object());
    int found = 0;
    for (const auto& site : data["sites"]) {
        for (const auto& g : site["grown"]) {
            ++found;
            EXPECT_EQ(g["where"], "grow_buffer (" + location(kSource, "grow") + ")");
            EXPECT_EQ(g["peak"], 1048576);
            EXPECT_EQ(g["peak_blocks"], 1);
            EXPECT_EQ(g["leaked"], 1048576);
            EXPECT_EQ(g["leaked_blocks"], 1);
            EXPECT_EQ(site["leaked"], 1048576);
        }
    }
    EXPECT_EQ(found, 1) << data["sites"].dump();
}

// A sites file of the version before where blocks grew is still read, without it.
TEST(GrownAt, AFileOfThePreviousVersionIsRead) {
    Scratch scratch;
    const std::string sites = scratch / "run.sites";
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_grown"), "0"}, sites).exited_zero());
    // Version 5: the same file without the grown records and their flag.
    std::ifstream in(sites, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    in.close();
    uint32_t version = 0, flags = 0;
    memcpy(&version, bytes.data() + 8, 4);
    memcpy(&flags, bytes.data() + 32, 4);
    ASSERT_EQ(version, 6u);
    ASSERT_NE(flags & 256u, 0u);
    // The grown records sit just before the trailer: a count and 40 bytes each.
    const size_t trailer = bytes.size() - 16;
    uint64_t count = 0;
    bool located = false;
    for (uint64_t n = 0; n < 16 && !located; ++n) {
        const size_t at = trailer - 40 * n - 8;
        memcpy(&count, bytes.data() + at, 8);
        if (count == n) {
            bytes.erase(at, trailer - at);
            located = true;
        }
    }
    ASSERT_TRUE(located);
    version = 5;
    flags &= ~256u;
    memcpy(bytes.data() + 8, &version, 4);
    memcpy(bytes.data() + 32, &flags, 4);
    const uint64_t file_bytes = bytes.size();
    memcpy(bytes.data() + bytes.size() - 8, &file_bytes, 8);
    const std::string old = scratch / "old.sites";
    std::ofstream(old, std::ios::binary) << bytes;
    Outcome report = report_of(old, {"--leaks"});
    ASSERT_TRUE(report.exited_zero()) << report.err;
    EXPECT_NE(report.out.find("Leaks: 1048576 bytes in 1 block"), std::string::npos) << report.out;
    EXPECT_EQ(report.out.find("grown at"), std::string::npos) << report.out;
    Outcome current = report_of(sites, {"--leaks"});
    EXPECT_NE(current.out.find("grown at grow_buffer"), std::string::npos) << current.out;
}

}  // namespace
}  // namespace sites_test
