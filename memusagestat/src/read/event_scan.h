// SPDX-License-Identifier: MIT
// The first of the two passes the pictures of an event recording make: how many events, over
// what span of time, which threads allocated how much, and anything else a picture must know
// before it can place the first event (through `also`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "memusage/status.h"
#include "read/events_reader.h"

namespace memusagestat {

struct EventScan {
    uint64_t events = 0;
    uint64_t start_time = 0, end_time = 0;  // the recording's span (the reader's, or the events')
    std::unordered_map<uint32_t, uint64_t> thread_bytes;  // bytes allocated per thread serial
    bool any_site = false;                                // some allocation names a site
};

EventScan scan_events(EventsReader& reader,
                      const std::function<void(const RecordedEvent&)>& also = {});

// Where an event falls on the x axis: by time, or by its place among the events. Positions
// run from 0 to span(); the block replay is fed positions as times, so block lives come out
// in them.
class EventPlacement {
  public:
    EventPlacement(const EventScan& scan, bool time_based)
        : time_based_(time_based && scan.end_time > scan.start_time),
          start_(scan.start_time),
          span_(time_based_ ? scan.end_time - scan.start_time : scan.events) {}

    bool time_based() const { return time_based_; }
    uint64_t position(uint64_t index, uint64_t time) const {
        if (!time_based_) return index;
        return time <= start_ ? 0 : std::min(time - start_, span_);
    }
    uint64_t span() const { return span_ == 0 ? 1 : span_; }

  private:
    bool time_based_;
    uint64_t start_;
    uint64_t span_;
};

// Opens the recording, with the messages a user needs when it is not one.
memusage::Status open_recording(EventsReader& reader, const std::string& path);

}  // namespace memusagestat
