// SPDX-License-Identifier: MIT
// read_events FILE: decodes an event recording once, front to back, with memusagestat's
// reader and nothing else: the yardstick the pictures' benchmark sets their times beside.
#include <cstdio>

#include "read/events_reader.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: read_events FILE\n");
        return 2;
    }
    memusagestat::EventsReader reader;
    if (memusage::Status opened = reader.open(argv[1]); !opened.ok()) {
        std::fprintf(stderr, "read_events: %s\n", opened.error().c_str());
        return 1;
    }
    memusagestat::RecordedEvent event;
    uint64_t events = 0, bytes = 0;
    while (reader.next(event)) {
        ++events;
        bytes += event.size;
    }
    std::printf("%llu events, %llu bytes\n", static_cast<unsigned long long>(events),
                static_cast<unsigned long long>(bytes));
    return 0;
}
