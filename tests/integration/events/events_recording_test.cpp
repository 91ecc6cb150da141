// SPDX-License-Identifier: MIT
// The collector's event recording (MEMUSAGE_EVENTS): fixtures with known heap events, the
// file read back event by event with memusagestat's reader. Exact records, addresses paired,
// threads told apart, the heap replayed to the summary's peak; across fork, exec, fatal signals,
// SIGKILL and a failing file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "collector_run.h"
#include "memusage/sites_format.h"
#include "recording.h"

namespace events_test {
namespace {

using collector_test::fixture;
using collector_test::Outcome;
using collector_test::parse_summary;
using collector_test::run;
using collector_test::Scratch;

const std::string kFixture = fixture("events_fixture_recorded");

Outcome run_recorded(const std::vector<std::string>& arguments, const std::string& events,
                     std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kFixture};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    extra.push_back("MEMUSAGE_EVENTS=" + events);
    extra.push_back("MEMUSAGE_COLOR=never");
    return run(argv, extra);
}

// The events the fixture printed, in the order they happened.
std::vector<RecordedEvent> printed_events(const std::string& out) {
    std::vector<RecordedEvent> events;
    std::istringstream lines(out);
    std::string word;
    while (lines >> word) {
        RecordedEvent event = {};
        if (word == "malloc") {
            event.kind = Kind::allocate;
            lines >> event.address >> event.size;
        } else if (word == "free") {
            event.kind = Kind::release;
            lines >> event.address;
        } else if (word == "realloc") {
            event.kind = Kind::resize;
            lines >> event.old_address >> event.address >> event.size;
        }
        events.push_back(event);
    }
    return events;
}

std::string describe(const RecordedEvent& event) {
    std::ostringstream text;
    const char* names[] = {"allocate", "release", "resize"};
    text << names[static_cast<int>(event.kind)] << " " << event.address;
    if (event.kind == Kind::resize) text << " from " << event.old_address;
    if (event.kind != Kind::release) text << " size " << event.size;
    text << " thread " << event.thread;
    return text.str();
}

// The replayed heap's peak, every free and resize finding its block.
uint64_t checked_peak(const Recording& recording) {
    uint64_t unknown = 0;
    uint64_t peak = replayed_peak(recording, &unknown);
    EXPECT_EQ(unknown, 0u);
    return peak;
}

void expect_complete(const Recording& recording) {
    EXPECT_EQ(recording.open_error, "");
    EXPECT_EQ(recording.problem, "");
    EXPECT_TRUE(recording.complete);
    EXPECT_EQ(recording.trailer_event_count, recording.events.size());
    EXPECT_EQ(recording.dropped, 0u);
    if (!recording.events.empty()) {
        EXPECT_LE(recording.start_time, recording.events.front().time);
        EXPECT_GE(recording.end_time, recording.events.back().time);
    }
}

uint64_t file_size(const std::string& path) { return std::filesystem::file_size(path); }
constexpr uint64_t kChunkBytes = 256 * 1024;  // what the collector writes at a time

TEST(EventsRecording, EveryHeapEventOfAKnownSequenceIsRecordedExactly) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"sequence"}, events);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    EXPECT_FALSE(decoded.has_sites);
    std::vector<RecordedEvent> expected = printed_events(outcome.out);
    ASSERT_EQ(expected.size(), 18u) << outcome.out;
    ASSERT_EQ(decoded.events.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const RecordedEvent& got = decoded.events[i];
        SCOPED_TRACE("event " + std::to_string(i) + ": " + describe(got));
        EXPECT_EQ(got.kind, expected[i].kind);
        EXPECT_EQ(got.address, expected[i].address);
        EXPECT_EQ(got.old_address, expected[i].old_address);
        EXPECT_EQ(got.size, expected[i].size);
        EXPECT_EQ(got.site, 0u);
        EXPECT_EQ(got.thread, 1u);
        if (i > 0) {
            EXPECT_GE(got.time, decoded.events[i - 1].time);
        }
    }
    // One realloc moved the block and one kept it in place.
    EXPECT_NE(expected[5].address, expected[5].old_address);
    EXPECT_EQ(expected[6].address, expected[6].old_address);
    ASSERT_EQ(decoded.threads.size(), 1u);
    EXPECT_EQ(decoded.threads[0].serial, 1u);
    EXPECT_EQ(decoded.threads[0].name, "events_fixture_");  // the kernel keeps 15 bytes
    EXPECT_EQ(checked_peak(decoded), parse_summary(outcome.err).heap_peak);
    // Stamped, though the thread recorded alone (directly into the stream) and no data
    // file asked for times.
    EXPECT_GT(decoded.events.back().time, decoded.events.front().time);
}

TEST(EventsRecording, TwoThreadsAreToldApartAndNamed) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"threads"}, events);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    std::map<uint64_t, std::set<uint32_t>> serials_by_base;  // 0, 1000, 2000 -> serials
    size_t worker_allocations = 0;
    for (const RecordedEvent& event : decoded.events) {
        EXPECT_NE(event.thread, 0u);
        if (event.kind != Kind::allocate) continue;
        uint64_t base = event.size / 1000 * 1000;
        serials_by_base[base].insert(event.thread);
        if (base != 0) ++worker_allocations;
    }
    EXPECT_EQ(worker_allocations, 600u);
    ASSERT_EQ(serials_by_base[1000].size(), 1u);
    ASSERT_EQ(serials_by_base[2000].size(), 1u);
    uint32_t a = *serials_by_base[1000].begin(), b = *serials_by_base[2000].begin();
    EXPECT_NE(a, b);
    EXPECT_NE(a, 1u);
    EXPECT_NE(b, 1u);
    ASSERT_NE(decoded.thread(a), nullptr);
    ASSERT_NE(decoded.thread(b), nullptr);
    EXPECT_EQ(decoded.thread(a)->name, "worker-a");
    EXPECT_EQ(decoded.thread(b)->name, "worker-b");
    EXPECT_NE(decoded.thread(a)->tid, decoded.thread(b)->tid);
    EXPECT_EQ(checked_peak(decoded), parse_summary(outcome.err).heap_peak);
}

// The recording is in the stream's merged order: beside a data file (whose records are
// that order), the heap replayed after each event is the data file's record for record,
// with two threads allocating at once.
TEST(EventsRecording, TheRecordingFollowsTheDataFilesOrderEventForEvent) {
    Scratch scratch;
    std::string events = scratch / "events";
    std::string data = scratch / "profile";
    Outcome outcome =
        run_recorded({"threads"}, events, {"MEMUSAGE_OUTPUT=" + data, "MEMUSAGE_NO_TIMER=1"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    std::vector<uint64_t> file_heaps =
        collector_test::event_heaps(collector_test::read_records(data));
    ASSERT_EQ(file_heaps.size(), decoded.events.size());
    memusagestat::BlockReplay replay;
    for (size_t i = 0; i < decoded.events.size(); ++i) {
        replay.add(decoded.events[i], [](const memusagestat::BlockLife&) {});
        ASSERT_EQ(static_cast<uint64_t>(replay.heap()), file_heaps[i])
            << "event " << i << ": " << describe(decoded.events[i]);
    }
}

TEST(EventsRecording, ManyEventsFillChunksCompactlyAndReplayToTheSummarysPeak) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"churn", "200000"}, events);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    EXPECT_EQ(decoded.events.size(), 400000u);
    EXPECT_GT(file_size(events), 2 * kChunkBytes);
    // The recording's aim: no more than 8 bytes an event.
    EXPECT_LE(file_size(events), 8 * decoded.events.size());
    EXPECT_EQ(checked_peak(decoded), parse_summary(outcome.err).heap_peak);
    // The clocks give the counter a rate: between 0.1 and 100 GHz, whatever the machine.
    EXPECT_GT(decoded.seconds_per_cycle, 1e-11);
    EXPECT_LT(decoded.seconds_per_cycle, 1e-8);
}

// The sites file's blocks allocated by site id (memusage/sites_format.h), of the sites that
// allocated any.
std::map<uint64_t, uint64_t> blocks_by_site(const std::string& path) {
    namespace sites = memusage::sites_format;
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::map<uint64_t, uint64_t> blocks;
    sites::FileHeader header;
    if (bytes.size() < sizeof header) return blocks;
    memcpy(&header, bytes.data(), sizeof header);
    size_t at = header.header_bytes;
    for (uint32_t i = 0;
         i < header.module_count && at + sizeof(sites::ModuleRecord) <= bytes.size(); ++i) {
        sites::ModuleRecord module;
        memcpy(&module, bytes.data() + at, sizeof module);
        at = sites::padded_to_8(at + sizeof module + module.build_id_bytes + module.path_bytes);
    }
    for (uint32_t i = 0; i < header.site_count && at + sizeof(sites::SiteRecord) <= bytes.size();
         ++i) {
        sites::SiteRecord site;
        memcpy(&site, bytes.data() + at, sizeof site);
        // A stack that only grew blocks by realloc is a site of the file without blocks.
        if (site.blocks_allocated != 0) blocks[site.id] = site.blocks_allocated;
        at += sizeof site + site.depth * sizeof(uint64_t);
    }
    return blocks;
}

TEST(EventsRecording, WithSitesTheAllocationsCarryTheSitesFilesIds) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"sequence"}, events, {"MEMUSAGE_SITES=" + (scratch / "sites")});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    EXPECT_TRUE(decoded.has_sites);
    std::map<uint64_t, uint64_t> allocations_by_site;
    for (const RecordedEvent& event : decoded.events) {
        if (event.kind != Kind::allocate) continue;
        EXPECT_NE(event.site, 0u) << describe(event);
        ++allocations_by_site[event.site];
    }
    // Every allocation of the sequence is made at a line of its own, and the sites file
    // counts each site's blocks under the same id.
    EXPECT_GE(allocations_by_site.size(), 6u);
    EXPECT_EQ(allocations_by_site, blocks_by_site(scratch / "sites"));
    EXPECT_EQ(checked_peak(decoded), parse_summary(outcome.err).heap_peak);
}

// Sampled sites: a sampled block's events carry its stack's id (the sites file's), never
// the tag with its sampling weight; a block outside the sample has none.
TEST(EventsRecording, WithSampledSitesTheAllocationsCarryStackIds) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"sequence"}, events,
                                   {"MEMUSAGE_SITES=" + (scratch / "sites"),
                                    "MEMUSAGE_SITES_SAMPLE=16", "MEMUSAGE_SITES_SEED=1"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    std::map<uint64_t, uint64_t> sites = blocks_by_site(scratch / "sites");
    size_t sampled = 0;
    for (const RecordedEvent& event : decoded.events) {
        if (event.kind != Kind::allocate || event.site == 0) continue;
        ++sampled;
        EXPECT_EQ(sites.count(event.site), 1u) << describe(event);
    }
    EXPECT_GT(sampled, 0u);
}

TEST(EventsRecording, TracedMapsAreNotHeapBlocks) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"maps"}, events, {"MEMUSAGE_TRACE_MMAP=1"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    EXPECT_EQ(parse_summary(outcome.err).row("mmap(a)").calls, 1u) << outcome.err;
    ASSERT_EQ(decoded.events.size(), 1u);
    EXPECT_EQ(decoded.events[0].kind, Kind::allocate);
    EXPECT_EQ(decoded.events[0].size, 100u);
}

TEST(EventsRecording, AForkedChildNeverWritesTheParentsFile) {
    for (const char* mode : {"fork", "spawn"}) {
        SCOPED_TRACE(mode);
        Scratch scratch;
        std::string events = scratch / "events";
        Outcome outcome = run_recorded({mode}, events);
        ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
        Recording decoded = read_recording(events);
        expect_complete(decoded);
        std::vector<uint64_t> sizes;
        for (const RecordedEvent& event : decoded.events)
            if (event.kind == Kind::allocate) sizes.push_back(event.size);
        EXPECT_EQ(sizes, (std::vector<uint64_t>{111, 222}));
    }
}

TEST(EventsRecording, AnImageExecdInPlaceOfTheOwnerTakesTheFileOver) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"exec"}, events);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    ASSERT_EQ(decoded.events.size(), printed_events(outcome.out).size());
    EXPECT_EQ(decoded.events.front().size, 100u);  // the sequence's, not the 333 before exec
}

TEST(EventsRecording, ARunDyingOfAFatalSignalGetsItsTrailer) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"segv"}, events);
    ASSERT_EQ(outcome.signal(), SIGSEGV) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    std::vector<RecordedEvent> expected = printed_events(outcome.out);
    ASSERT_EQ(decoded.events.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(decoded.events[i].kind, expected[i].kind);
        EXPECT_EQ(decoded.events[i].address, expected[i].address);
    }
}

TEST(EventsRecording, AKilledRunLeavesWholeChunks) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run_recorded({"kill", "300000"}, events);
    ASSERT_EQ(outcome.signal(), SIGKILL) << outcome.err;
    Recording decoded = read_recording(events);
    EXPECT_EQ(decoded.open_error, "");
    EXPECT_EQ(decoded.problem, "");
    EXPECT_FALSE(decoded.complete);
    // Whole chunks: the file ends where one does, and holds the run's first events, each
    // free finding its block.
    EXPECT_GT(file_size(events), 2 * kChunkBytes);
    EXPECT_GT(decoded.events.size(), 100000u);
    checked_peak(decoded);
}

TEST(EventsRecording, AFileThatCannotBeCreatedIsSaidOnceAndTheProgramRunsOn) {
    Scratch scratch;
    std::string events = scratch / "no-such-directory/events";
    Outcome outcome = run_recorded({"sequence"}, events);
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    EXPECT_NE(outcome.err.find("memusage: cannot write the events file " + events +
                               ": No such file or directory\n"),
              std::string::npos)
        << outcome.err;
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 4u);
}

// A file size limit stops the second chunk: said once, the program runs on, the file
// keeps its first chunk and a trailer counting what was dropped.
TEST(EventsRecording, AFailedWriteIsSaidOnceAndTheTrailerCountsTheDropped) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run({"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 600; exec \"$0\" \"$@\"",
                           kFixture, "churn", "200000"},
                          {"MEMUSAGE_EVENTS=" + events, "MEMUSAGE_COLOR=never",
                           "MEMUSAGE_PROG_NAME=events_fixture_recorded"});
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    std::string said = "memusage: cannot write the events file " + events + ": File too large";
    size_t at = outcome.err.find(said);
    ASSERT_NE(at, std::string::npos) << outcome.err;
    EXPECT_EQ(outcome.err.find(said, at + 1), std::string::npos) << outcome.err;
    Recording decoded = read_recording(events);
    EXPECT_EQ(decoded.problem, "");
    ASSERT_TRUE(decoded.complete);
    EXPECT_EQ(decoded.trailer_event_count, decoded.events.size());
    EXPECT_EQ(decoded.trailer_event_count + decoded.dropped, 400000u);
    EXPECT_GT(decoded.dropped, 0u);
    EXPECT_GT(decoded.events.size(), 0u);
    EXPECT_EQ(parse_summary(outcome.err).row("malloc").calls, 200000u);
}

TEST(EventsRecording, TheDriversEventsOptionRecords) {
    Scratch scratch;
    std::string events = scratch / "events";
    Outcome outcome = run({OUR_MEMUSAGE, "--events=" + events, kFixture, "sequence"},
                          {"MEMUSAGE_COLOR=never"}, "");
    ASSERT_TRUE(outcome.exited_zero()) << outcome.err;
    Recording decoded = read_recording(events);
    expect_complete(decoded);
    EXPECT_EQ(decoded.events.size(), printed_events(outcome.out).size());
}

}  // namespace
}  // namespace events_test
