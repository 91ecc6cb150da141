// SPDX-License-Identifier: MIT
// Feeds arbitrary bytes to the event recording's reader, twice over (as the pictures read it),
// and what it accepts through the block replay: nothing may crash, overflow or read out of
// bounds.
#include <cstddef>
#include <cstdint>
#include <span>

#include "read/block_replay.h"
#include "read/events_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    memusagestat::EventsReader reader;
    if (!reader.open_bytes(std::as_bytes(std::span(data, size))).ok()) return 0;
    for (int pass = 0; pass < 2; ++pass) {
        memusagestat::BlockReplay replay;
        memusagestat::RecordedEvent event;
        uint64_t total = 0;
        auto ended = [&](const memusagestat::BlockLife& life) { total += life.end - life.start; };
        while (reader.next(event)) replay.add(event, ended);
        replay.finish(reader, reader.end_time(), ended);
        (void)reader.seconds_per_cycle();
        reader.rewind();
    }
    return 0;
}
