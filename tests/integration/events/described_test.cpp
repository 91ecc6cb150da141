// SPDX-License-Identifier: MIT
// Described blocks (event recording version 4): a fixture with sites on, its recording
// replayed without the live-block table and, rewritten with the plain kinds, with it. The two
// give the same block lives, and memusagestat's replaying outputs the same bytes; the blocks
// the fixture leaks come out with their address, size, thread and birth.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>

#include "collector_run.h"
#include "plain_kinds.h"
#include "read/block_replay.h"
#include "read/events_reader.h"
#include "read/replay_feed.h"

namespace events_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::Scratch;
using memusagestat::BlockLife;
using memusagestat::EventsReader;
using memusagestat::RecordedEvent;

std::vector<uint8_t> file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}
std::string file_text(const std::string& path) {
    const std::vector<uint8_t> bytes = file_bytes(path);
    return {bytes.begin(), bytes.end()};
}

struct Replayed {
    std::vector<BlockLife> lives;
    uint64_t unknown = 0, described_events = 0, events = 0;
    std::vector<memusagestat::ThreadInfo> threads;
};

// Every life the replay gives, through the read-ahead feed as memusagestat replays.
Replayed replay(const std::string& path, bool read_descriptions = true) {
    Replayed out;
    EventsReader reader;
    EXPECT_EQ(reader.open(path).error(), "");
    reader.read_descriptions(read_descriptions);
    memusagestat::BlockReplay table;
    memusagestat::ReplayFeed feed(reader, table);
    RecordedEvent event;
    auto keep = [&](const BlockLife& life) { out.lives.push_back(life); };
    while (feed.next(event)) {
        ++out.events;
        out.described_events += event.described;
        table.add(event, keep);
    }
    EXPECT_EQ(reader.problem(), "");
    table.finish(reader, reader.end_time(), keep);
    EXPECT_EQ(table.heap(), 0) << "every block's bytes ended once";
    out.unknown = table.unknown_blocks();
    out.threads = reader.threads();
    return out;
}

auto key(const BlockLife& life) {
    return std::tie(life.address, life.start, life.end, life.size, life.site, life.thread,
                    life.born, life.freed, life.resized_away);
}
void sort_lives(std::vector<BlockLife>& lives) {
    std::sort(lives.begin(), lives.end(),
              [](const BlockLife& a, const BlockLife& b) { return key(a) < key(b); });
}

struct RecordedRun {
    Scratch scratch;
    std::string sites, events, plain;
    Outcome outcome;
    RecordedRun()
        : sites(scratch / "run.sites"), events(scratch / "run.events"), plain(scratch / "plain") {
        outcome = collector_test::run({fixture("events_fixture_described")},
                                      {"MEMUSAGE_SITES=" + sites, "MEMUSAGE_EVENTS=" + events});
        write_bytes(plain, with_plain_kinds(file_bytes(events)));
    }
};

TEST(Described, TheReplayWithoutTheTableGivesTheTablesLives) {
    RecordedRun run;
    ASSERT_TRUE(run.outcome.exited_zero()) << run.outcome.err;
    Replayed described = replay(run.events);
    Replayed table = replay(run.plain);
    Replayed ignored = replay(run.events, false);
    // Nearly every block has a site: nearly every event is described, none of the plain file's.
    EXPECT_GT(described.described_events, described.events * 9 / 10);
    EXPECT_GT(described.events, 150000u) << "several chunks, read back over more than one";
    EXPECT_EQ(table.described_events, 0u);
    EXPECT_EQ(ignored.described_events, 0u);
    EXPECT_EQ(described.events, table.events);
    EXPECT_EQ(described.unknown, 0u);
    EXPECT_EQ(table.unknown, 0u);
    sort_lives(described.lives);
    sort_lives(table.lives);
    sort_lives(ignored.lives);
    ASSERT_EQ(described.lives.size(), table.lives.size());
    for (size_t i = 0; i < table.lives.size(); ++i)
        ASSERT_EQ(key(described.lives[i]), key(table.lives[i])) << "life " << i;
    ASSERT_EQ(ignored.lives.size(), table.lives.size());
    for (size_t i = 0; i < table.lives.size(); ++i)
        ASSERT_EQ(key(ignored.lives[i]), key(table.lives[i])) << "life " << i;
}

TEST(Described, LeakedBlocksComeOutWithTheirSizeThreadAndBirth) {
    RecordedRun run;
    ASSERT_TRUE(run.outcome.exited_zero()) << run.outcome.err;
    Replayed described = replay(run.events);
    std::map<uint64_t, uint32_t> serial_of_tid;
    for (const auto& thread : described.threads) serial_of_tid[thread.tid] = thread.serial;
    std::map<uint64_t, const BlockLife*> unfreed;
    for (const BlockLife& life : described.lives)
        if (!life.freed) unfreed[life.address] = &life;

    std::istringstream lines(run.outcome.out);
    std::string word;
    int leaks = 0, resized = 0;
    std::map<uint32_t, int> by_thread;
    while (lines >> word) {
        ASSERT_EQ(word, "leak");
        uint64_t address = 0, size = 0, tid = 0;
        lines >> address >> size >> tid;
        ++leaks;
        auto found = unfreed.find(address);
        ASSERT_NE(found, unfreed.end()) << "leak at " << address;
        const BlockLife& life = *found->second;
        EXPECT_EQ(life.size, size) << address;
        EXPECT_NE(life.site, 0u) << address;
        ASSERT_TRUE(serial_of_tid.contains(tid));
        EXPECT_EQ(life.thread, serial_of_tid[tid]) << address;
        ++by_thread[life.thread];
        EXPECT_LE(life.born, life.start);
        EXPECT_LE(life.start, life.end);
        if (life.born < life.start) ++resized;
    }
    EXPECT_EQ(leaks, 14);
    EXPECT_EQ(by_thread.size(), 2u) << "leaks of both threads";
    EXPECT_GE(resized, 4) << "the resized leaks keep their first allocation's birth";
}

// memusagestat's outputs that replay the recording, from it and from its plain rewrite.
std::vector<std::string> replaying_outputs(const RecordedRun& run, const std::string& events) {
    const std::string dhat = run.scratch / "out.dhat", massif = run.scratch / "out.massif";
    std::vector<std::string> outputs;
    for (const std::vector<std::string>& options : {std::vector<std::string>{"--long-lived=1us"},
                                                    {"--dhat=" + dhat},
                                                    {"--massif=" + massif}}) {
        std::vector<std::string> argv = {collector_test::kOurMemusagestat, "--sites=" + run.sites,
                                         "--events=" + events};
        argv.insert(argv.end(), options.begin(), options.end());
        Outcome stat = collector_test::run(argv, {}, "");
        EXPECT_TRUE(stat.exited_zero()) << stat.err;
        outputs.push_back(stat.out);
    }
    outputs.push_back(file_text(dhat));
    outputs.push_back(file_text(massif));
    return outputs;
}

TEST(Described, ReplayingOutputsAreTheSameBytesFromEitherKinds) {
    RecordedRun run;
    ASSERT_TRUE(run.outcome.exited_zero()) << run.outcome.err;
    const std::vector<std::string> described = replaying_outputs(run, run.events);
    // The same path, so that no output differs by the name it gives.
    const std::string copy = run.scratch / "described";
    write_bytes(copy, file_bytes(run.events));
    write_bytes(run.events, file_bytes(run.plain));
    const std::vector<std::string> table = replaying_outputs(run, run.events);
    ASSERT_EQ(described.size(), table.size());
    const char* names[] = {"--long-lived", "--dhat's stdout", "--massif's stdout", "DHAT file",
                           "massif file"};
    for (size_t i = 0; i < table.size(); ++i) {
        EXPECT_EQ(described[i], table[i]) << names[i];
    }
    EXPECT_NE(described[0].find("Long-lived blocks:"), std::string::npos) << described[0];
    EXPECT_GT(described[3].size(), 1000u);
    EXPECT_GT(described[4].size(), 1000u);
}

}  // namespace
}  // namespace events_test
