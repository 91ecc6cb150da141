// SPDX-License-Identifier: MIT
#include "read/event_scan.h"

#include <algorithm>

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

EventScan scan_events(EventsReader& reader, const std::function<void(const RecordedEvent&)>& also) {
    EventScan scan;
    reader.rewind();
    RecordedEvent event;
    uint64_t first = 0, last = 0;
    // Events come in runs of one thread: one lookup per run (the map's nodes never move).
    uint32_t thread = 0;
    uint64_t* thread_bytes = nullptr;
    while (reader.next(event)) {
        if (scan.events == 0) first = event.time;
        last = std::max(last, event.time);
        ++scan.events;
        if (event.kind != RecordedEvent::Kind::release) {
            if (thread_bytes == nullptr || event.thread != thread) {
                thread = event.thread;
                thread_bytes = &scan.thread_bytes[thread];
            }
            *thread_bytes += event.size;
            scan.any_site |= event.site != 0;
        }
        if (also) also(event);
    }
    scan.start_time = std::min(reader.start_time() != 0 ? reader.start_time() : first, first);
    if (scan.events == 0) scan.start_time = reader.start_time();
    scan.end_time = std::max(reader.end_time(), last);
    return scan;
}

Status open_recording(EventsReader& reader, const std::string& path) {
    Status opened = reader.open(path);
    if (opened.ok()) return opened;
    return Failure{path + ": " + opened.error()};
}

}  // namespace memusagestat
