// SPDX-License-Identifier: MIT
// The feed that reads events ahead of the replay: it must hand over exactly the reader's
// events, in order, to the end or to the damage, and a replay fed by it must end every life
// as one fed straight from the reader.
#include "read/replay_feed.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "events_file_builder.h"

namespace memusagestat {
namespace {

using events_test::EventsFileBuilder;
using Kind = RecordedEvent::Kind;

bool same(const RecordedEvent& a, const RecordedEvent& b) {
    return a.kind == b.kind && a.time == b.time && a.address == b.address &&
           a.old_address == b.old_address && a.size == b.size && a.site == b.site &&
           a.thread == b.thread;
}
bool same(const BlockLife& a, const BlockLife& b) {
    return a.address == b.address && a.size == b.size && a.site == b.site && a.thread == b.thread &&
           a.born == b.born && a.start == b.start && a.end == b.end && a.freed == b.freed &&
           a.resized_away == b.resized_away;
}

// A recording of `events` random events over few addresses (frees and resizes of live and
// unknown blocks alike, several threads and chunks), `damaged`: with a bad record after them.
EventsFileBuilder random_recording(int events, bool damaged) {
    std::mt19937_64 random(7);
    EventsFileBuilder file;
    uint64_t time = 1000;
    const auto address = [&] { return 0x5555'0000'0000 + 32 * (random() % 500); };
    for (int i = 0; i < events; ++i) {
        if (i % 700 == 0) file.clock(time, time * 3).thread(1, 100).thread(2, 200);
        if (i % 13 == 0) file.thread_again(1 + random() % 2);
        time += random() % 20;
        const uint64_t kind = random() % 10;
        if (kind < 5)
            file.allocate(time, address(), 1 + random() % 300, random() % 30);
        else if (kind < 8)
            file.release(time, address());
        else
            file.resize(time, address(), address(), 1 + random() % 900);
    }
    if (damaged) file.raw({99, 1, 2});
    return file;
}

struct Lives {
    std::vector<RecordedEvent> events;
    std::vector<BlockLife> lives;
    std::string problem;
};

template <class Next>
Lives replayed(EventsReader& reader, BlockReplay& replay, Next&& next) {
    Lives out;
    RecordedEvent event;
    while (next(event)) {
        out.events.push_back(event);
        replay.add(event, [&](const BlockLife& life) { out.lives.push_back(life); });
    }
    replay.finish(reader, reader.end_time(),
                  [&](const BlockLife& life) { out.lives.push_back(life); });
    out.problem = reader.problem();
    return out;
}

void expect_feed_agrees(const EventsFileBuilder& file) {
    EventsReader plain_reader, fed_reader;
    ASSERT_EQ(plain_reader.open_bytes(file.span()).error(), "");
    ASSERT_EQ(fed_reader.open_bytes(file.span()).error(), "");
    BlockReplay plain_replay, fed_replay;
    Lives plain = replayed(plain_reader, plain_replay,
                           [&](RecordedEvent& event) { return plain_reader.next(event); });
    ReplayFeed feed(fed_reader, fed_replay);
    Lives fed =
        replayed(fed_reader, fed_replay, [&](RecordedEvent& event) { return feed.next(event); });
    EXPECT_EQ(fed.problem, plain.problem);
    ASSERT_EQ(fed.events.size(), plain.events.size());
    for (size_t i = 0; i < fed.events.size(); ++i)
        ASSERT_TRUE(same(fed.events[i], plain.events[i])) << "event " << i;
    ASSERT_EQ(fed.lives.size(), plain.lives.size());
    for (size_t i = 0; i < fed.lives.size(); ++i)
        ASSERT_TRUE(same(fed.lives[i], plain.lives[i])) << "life " << i;
    EXPECT_EQ(fed_replay.unknown_blocks(), plain_replay.unknown_blocks());
}

TEST(ReplayFeed, HandsOverTheReadersEventsAndTheSameLives) {
    expect_feed_agrees(random_recording(20000, false));
}

TEST(ReplayFeed, StopsWhereTheReaderStopsAtDamage) {
    expect_feed_agrees(random_recording(3001, true));
}

TEST(ReplayFeed, RecordingsShorterThanItsWindow) {
    for (int events : {0, 1, 2, 15, 16, 17, 31, 32, 33}) {
        SCOPED_TRACE(events);
        EventsFileBuilder file = random_recording(events, false);
        if (events == 0) file.clock(5, 5);
        expect_feed_agrees(file);
    }
}

}  // namespace
}  // namespace memusagestat
