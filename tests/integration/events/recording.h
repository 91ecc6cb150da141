// SPDX-License-Identifier: MIT
// A whole event recording read with memusagestat's EventsReader, for the tests of its
// writer: every event as written, the threads, and how the reading ended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "read/block_replay.h"
#include "read/events_reader.h"

namespace events_test {

using memusagestat::RecordedEvent;
using Kind = RecordedEvent::Kind;

struct Recording {
    std::string open_error;  // EventsReader::open's message ("" when it opened)
    std::string problem;     // why reading stopped early ("" when it did not)
    bool complete = false;   // the trailer was found
    bool has_sites = false;
    uint64_t trailer_event_count = 0, dropped = 0;
    uint64_t start_time = 0, end_time = 0;
    double seconds_per_cycle = 0;
    std::vector<RecordedEvent> events;
    std::vector<memusagestat::ThreadInfo> threads;

    const memusagestat::ThreadInfo* thread(uint32_t serial) const {
        for (const auto& info : threads)
            if (info.serial == serial) return &info;
        return nullptr;
    }
};

inline Recording read_recording(const std::string& path) {
    Recording recording;
    memusagestat::EventsReader reader;
    recording.open_error = reader.open(path).error();
    if (!recording.open_error.empty()) return recording;
    RecordedEvent event;
    while (reader.next(event)) recording.events.push_back(event);
    recording.problem = reader.problem();
    recording.complete = reader.complete();
    recording.has_sites = reader.has_sites();
    recording.trailer_event_count = reader.trailer_event_count();
    recording.dropped = reader.dropped();
    recording.start_time = reader.start_time();
    recording.end_time = reader.end_time();
    recording.seconds_per_cycle = reader.seconds_per_cycle();
    recording.threads = reader.threads();
    return recording;
}

// The heap's peak replayed from the blocks' events; `unknown` gets the frees and resizes
// of blocks never allocated in the recording.
inline uint64_t replayed_peak(const Recording& recording, uint64_t* unknown = nullptr) {
    memusagestat::BlockReplay replay;
    int64_t peak = 0;
    for (const RecordedEvent& event : recording.events) {
        replay.add(event, [](const memusagestat::BlockLife&) {});
        if (replay.heap() > peak) peak = replay.heap();
    }
    if (unknown != nullptr) *unknown = replay.unknown_blocks();
    return static_cast<uint64_t>(peak);
}

}  // namespace events_test
