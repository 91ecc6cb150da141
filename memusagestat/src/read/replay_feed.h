// SPDX-License-Identifier: MIT
// A recording's events read some way ahead of the one being replayed, so that what each will
// touch in the live-block table (block_replay.h) is on its way into the cache while the
// events before it are replayed. A large run's table is far larger than the cache and its
// events touch it at random: replayed one by one, nearly every event would wait on memory
// two or three times over; with the accesses of a dozen events in flight at once, the waits
// overlap.
#pragma once

#include <array>
#include <cstddef>

#include "read/block_replay.h"
#include "read/events_reader.h"

namespace memusagestat {

class ReplayFeed {
  public:
    // `replay`: the table the events will be replayed into (read only, for the hints).
    ReplayFeed(EventsReader& reader, const BlockReplay& replay)
        : reader_(reader), replay_(replay) {}

    // The next event, as EventsReader::next gives it; the reader itself has read up to
    // kAhead events further (its problem(), threads() and end are its own after the last).
    bool next(RecordedEvent& event) {
        while (!ended_ && count_ < kAhead) {
            RecordedEvent& read = ring_[(head_ + count_) & kMask];
            if (!reader_.next(read)) {
                ended_ = true;
                break;
            }
            replay_.prefetch_slots(read);
            ++count_;
            // The event half the window behind the one just read: its slots have had the
            // time of kAhead / 2 events to come in.
            if (count_ > kAhead / 2)
                replay_.prefetch_entries(ring_[(head_ + count_ - 1 - kAhead / 2) & kMask]);
        }
        if (count_ == 0) return false;
        event = ring_[head_];
        head_ = (head_ + 1) & kMask;
        --count_;
        return true;
    }

  private:
    static constexpr size_t kAhead = 32;  // a power of two
    static constexpr size_t kMask = kAhead - 1;

    EventsReader& reader_;
    const BlockReplay& replay_;
    std::array<RecordedEvent, kAhead> ring_{};
    size_t head_ = 0, count_ = 0;
    bool ended_ = false;
};

}  // namespace memusagestat
