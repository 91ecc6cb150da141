// SPDX-License-Identifier: MIT
// An event recording (memusage/events_format.h) read front to back, one event at a time:
// every varint, delta and count is checked, nothing in the file is trusted, and the pages
// already read are given back, so memory stays the same whatever the recording's length.
#pragma once

#include <memusage/machine_format.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "memusage/events_format.h"
#include "memusage/status.h"

namespace memusagestat {

struct RecordedEvent {
    enum class Kind { allocate, release, resize };
    Kind kind = Kind::allocate;
    uint64_t time = 0;         // cycle counter, absolute
    uint64_t address = 0;      // the block (for a resize, its new address)
    uint64_t old_address = 0;  // resize only
    uint64_t size = 0;         // allocate and resize: the block's size now; release: 0
    // allocate: the sites file's SiteRecord::id; 0 for none. A described release or resize:
    // the block's.
    uint32_t site = 0;
    uint32_t thread = 0;  // the thread's serial; 0 before a chunk names its thread
    // A described block's (events_format.h, version 4): an allocate of one, or its release
    // or resize, whose record says what the fields below say of the block it ends.
    bool described = false;
    // A described release or resize: the block it ends, its allocating thread, its size,
    // its first allocation and when it took that address and size (cycle counter).
    uint32_t owner = 0;
    uint64_t old_size = 0;
    uint64_t born = 0, start = 0;
};

// Whether `event` made a described block (an allocate of one, or a described resize).
inline bool makes_described(const RecordedEvent& event) {
    return event.described && event.kind != RecordedEvent::Kind::release;
}

struct ThreadInfo {
    uint32_t serial = 0;
    uint64_t tid = 0;
    std::string name;  // empty when the recording did not name it
};

class EventsReader {
    struct ThreadState {
        uint64_t chunk = 0;  // the chunk that named it last; 0: none yet
        uint64_t address = 0;
    };

  public:
    EventsReader() = default;
    EventsReader(const EventsReader&) = delete;
    EventsReader& operator=(const EventsReader&) = delete;
    ~EventsReader();

    // Maps and checks the file; failing, a message for the user.
    memusage::Status open(const std::string& path);
    // The same for a recording held in memory (kept by the caller while in use).
    memusage::Status open_bytes(std::span<const std::byte> bytes);

    // The next event; false at the end of the recording, or where it is damaged
    // (problem() then says where and why).
    bool next(RecordedEvent& event);
    // Back to the first event, for another pass.
    void rewind();

    // false: the described kinds are read as the plain ones (their descriptions left out),
    // as a reader that keeps a table of every block would need them; for tests.
    void read_descriptions(bool read) { read_descriptions_ = read; }
    // The chunks the passes have come to so far, in the file's order.
    size_t chunks_seen() const { return chunk_starts_.size(); }
    // Chunk `index`'s events, as next() gives them, into `out` (those `keep` takes, if
    // given), read again on its own (a chunk owes nothing to those before it): for going
    // over a recording backwards once a pass is over. The pass's place (where it is,
    // problem(), the end time) is left as it was.
    void read_chunk(size_t index, std::vector<RecordedEvent>& out,
                    bool (*keep)(const RecordedEvent&) = nullptr);
    // The times of chunk `index`'s first and last events (cycle counter; every event of the
    // chunk is between), once a pass has read the whole chunk; false before.
    bool chunk_times(size_t index, uint64_t& first, uint64_t& last) const;
    // Events making a described block (makes_described) the pass has given so far.
    uint64_t described_made() const { return at_.described_made; }

    // Why the last pass stopped before the end of the file; empty if it did not.
    const std::string& problem() const { return problem_; }
    // The run ended and completed the file (it has its trailer). An incomplete recording
    // (the run was killed) holds the events of the whole chunks it wrote.
    bool complete() const { return complete_; }

    uint64_t pid() const { return pid_; }
    // The machine that recorded it (version 3 on); all zero: not stated.
    const memusage::machine_format::MachineStamp& machine() const { return machine_; }
    bool has_sites() const { return has_sites_; }
    // Cycle-counter readings: the first chunk's start; the run's end (from the trailer, or
    // after a pass over an incomplete recording, its last event).
    uint64_t start_time() const { return start_time_; }
    uint64_t end_time() const;
    // The counter's rate, from the clock readings of the first chunk and of the trailer (or,
    // for an incomplete recording, of the last chunk seen). 0 when unknown: a recording of
    // a single chunk with no trailer.
    double seconds_per_cycle() const;
    // Events the collector could not write (trailer), and events counted in the trailer.
    uint64_t dropped() const { return dropped_; }
    uint64_t trailer_event_count() const { return trailer_event_count_; }
    // Threads named by the events read so far, in serial order.
    const std::vector<ThreadInfo>& threads() const { return threads_; }

  private:
    memusage::Status parse_header();
    bool fail(const char* why);
    bool cut_short(const uint8_t* record_start, const char* why);
    // What a record that is no block event did (a clock reading or a thread's record).
    enum class Bookkeeping : uint8_t { none, read, failed };
    Bookkeeping read_bookkeeping(memusage::events_format::Kind kind);
    // The block event at the cursor (allocate, release, resize); false at damage or at the
    // end a killed run left.
    bool read_block_event(memusage::events_format::Kind kind, RecordedEvent& event);
    // The rest of a described release or resize (events_format.h): the ended block's size,
    // site, owner, age, lived_before.
    bool read_description(RecordedEvent& event);
    bool read_clock();
    bool read_thread();
    bool read_thread_again();
    void switch_thread(uint32_t serial, ThreadState& state);
    bool read_thread_name();
    bool read_time(uint64_t& time);
    bool read_address(uint64_t& address);
    ThreadInfo& thread_info(uint32_t serial);
    void release_pages_behind();
    void note_chunk_end();

    void* map_ = nullptr;
    std::size_t map_size_ = 0;
    const uint8_t* data_ = nullptr;   // the whole file
    const uint8_t* begin_ = nullptr;  // the first record

    uint32_t time_shift_ = 0;
    bool complete_ = false;
    bool has_sites_ = false;
    uint64_t pid_ = 0;
    memusage::machine_format::MachineStamp machine_ = {};
    uint64_t dropped_ = 0, trailer_event_count_ = 0;
    uint64_t trailer_end_time_ = 0, trailer_end_ns_ = 0;
    uint64_t start_time_ = 0, start_ns_ = 0;  // the first clock

    // Where a pass is: what read_chunk saves and puts back around the chunk it reads.
    struct Place {
        const uint8_t* cursor = nullptr;
        const uint8_t* end = nullptr;  // past the last record (the trailer's start, if any)
        const uint8_t* released_to = nullptr;
        uint64_t last_clock_time = 0, last_clock_ns = 0;
        uint64_t last_event_time = 0;
        uint64_t described_made = 0;    // this pass's (described_made())
        size_t chunk_index = SIZE_MAX;  // the chunk being read, counted from the first
        // Per chunk.
        bool in_chunk = false;
        uint64_t time = 0;     // shifted
        uint64_t address = 0;  // the current thread's address base (events_format.h)
        uint32_t thread = 0;
        ThreadState no_thread;  // the base before a chunk's first Thread record
        // Where address goes back when the thread changes: no_thread or a thread's state.
        ThreadState* current = &no_thread;
    };
    Place at_;
    uint64_t chunk_ = 0;  // chunks begun, over every pass: a ThreadState's chunk
    // Every thread seen, and its base in the chunk that last named it (the map's entries
    // stay where they are as it grows).
    std::unordered_map<uint32_t, ThreadState> thread_states_;

    std::string problem_;
    std::vector<ThreadInfo> threads_;

    uint32_t version_ = 0;
    bool read_descriptions_ = true;
    std::vector<std::size_t> chunk_starts_;  // offsets from data_ of the chunks come to
    // Each chunk's first and last times (shifted); last kUnknownTime until read whole.
    struct ChunkTimes {
        uint64_t first, last;
    };
    static constexpr uint64_t kUnknownTime = UINT64_MAX;
    std::vector<ChunkTimes> chunk_times_;
};

}  // namespace memusagestat
