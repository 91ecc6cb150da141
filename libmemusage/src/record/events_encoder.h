// SPDX-License-Identifier: MIT
// The event recording's records (memusage/events_format.h), encoded into memory: varints
// and deltas, state kept from one record to the next within a chunk (the time, and each
// thread's address base). No I/O, no checks of room: the caller gives kMaxEventBytes (or
// kMaxNameBytes) for each call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memusage/events_format.h"
#include "record/thread_log.h"

namespace memusage {

class EventsEncoder {
  public:
    // A Clock record, a Thread record and the longest event record.
    static constexpr size_t kMaxEventBytes = 3 * events_format::kMaxRecordBytes;
    static constexpr size_t kNameBytes = 16;  // the kernel's thread names, with their end
    static constexpr size_t kMaxNameBytes =
        events_format::kMaxRecordBytes + 3 * events_format::kMaxVarint + kNameBytes;

    // A new chunk at `out`: its Clock record, and the delta state from nothing. `time` is
    // the shifted cycle counter, `ns` CLOCK_MONOTONIC at that instant.
    uint8_t* start_chunk(uint8_t* out, uint64_t time, uint64_t ns) {
        *out++ = static_cast<uint8_t>(events_format::Kind::clock);
        out = events_format::put_varint(out, time);
        out = events_format::put_varint(out, ns);
        time_ = time;
        ++chunk_;  // the threads the chunks before named are named again
        serial_ = 0;
        current_ = kNoThread;
        bases_[kNoThread].address = 0;
        return out;
    }

    // One heap event of thread `serial` (from 1), at `time` (shifted; an earlier time
    // than the previous record's is taken as that one: cores' counters disagree by a
    // few cycles). `site` goes with an allocate, and with a described block's release or
    // resize. Nothing for a change of no block.
    uint8_t* event(uint8_t* out, uint64_t serial, uint64_t tid, uint64_t time,
                   const BlockChange& block, uint32_t site) {
        using events_format::Kind;
        using events_format::put_varint;
        if (serial != serial_) out = switch_thread(out, serial, tid);
        uint64_t delta = time > time_ ? time - time_ : 0;
        time_ += delta;
        if (block.old_address == 0) {
            *out++ = static_cast<uint8_t>(block.makes_described ? Kind::allocate_described
                                                                : Kind::allocate);
            out = put_varint(out, delta);
            out = put_varint(out, address_delta(block.address));
            out = put_varint(out, block.size);
            return put_varint(out, site);
        }
        const bool described = block.ended.described;
        if (block.address == 0) {
            *out++ = static_cast<uint8_t>(described ? Kind::release_described : Kind::release);
            out = put_varint(out, delta);
            out = put_varint(out, address_delta(block.old_address));
            if (!described) return out;
            out = put_varint(out, block.ended.size);
            return describe_ended(out, block.ended, site);
        }
        *out++ = static_cast<uint8_t>(described ? Kind::resize_described : Kind::resize);
        out = put_varint(out, delta);
        out = put_varint(out, address_delta(block.old_address));
        out = put_varint(out, address_delta(block.address));
        out = put_varint(out, block.size);
        if (!described) return out;
        out = put_varint(out, block.ended.size);
        return describe_ended(out, block.ended, site);
    }

    // A thread's name (at most kNameBytes - 1 bytes are kept).
    uint8_t* thread_name(uint8_t* out, uint64_t serial, const char* name) {
        size_t length = strnlen(name, kNameBytes - 1);
        *out++ = static_cast<uint8_t>(events_format::Kind::thread_name);
        out = events_format::put_varint(out, serial);
        out = events_format::put_varint(out, length);
        memcpy(out, name, length);
        return out + length;
    }

    static bool is_block_event(const BlockChange& block) {
        return (block.address | block.old_address) != 0;
    }
    uint64_t time() const { return time_; }

  private:
    // Each thread's address base in the chunk, in a table of fixed size: a thread whose
    // entry another took since it was named is named again (its base restarting at 0),
    // which costs a few bytes and keeps the table bounded whatever the threads' number.
    struct ThreadBase {
        uint64_t serial = 0;
        uint64_t chunk = 0;  // the chunk it was named in (chunk_'s count)
        uint64_t address = 0;
    };
    static constexpr size_t kThreadBases = 64;
    static constexpr size_t kNoThread = kThreadBases;  // the base before any Thread record

    // A Thread-again record if the chunk named `serial` and its entry is still its own,
    // else a Thread record (with the tid) that names it and starts its base at 0.
    uint8_t* switch_thread(uint8_t* out, uint64_t serial, uint64_t tid) {
        using events_format::Kind;
        using events_format::put_varint;
        size_t entry = serial % kThreadBases;
        ThreadBase& base = bases_[entry];
        if (base.serial == serial && base.chunk == chunk_) {
            *out++ = static_cast<uint8_t>(Kind::thread_again);
            out = put_varint(out, serial);
        } else {
            *out++ = static_cast<uint8_t>(Kind::thread);
            out = put_varint(out, serial);
            out = put_varint(out, tid);
            base = ThreadBase{serial, chunk_, 0};
        }
        serial_ = serial;
        current_ = entry;
        return out;
    }
    // A described block's site, owner, age and lived_before (events_format.h), its times
    // from the record's (time_, after the delta): never below 0, should cores' counters
    // have disagreed.
    uint8_t* describe_ended(uint8_t* out, const EndedBlock& ended, uint32_t site) const {
        using events_format::put_varint;
        out = put_varint(out, site);
        out = put_varint(out, ended.owner);
        out = put_varint(out, time_ > ended.start ? time_ - ended.start : 0);
        return put_varint(out, ended.start > ended.born ? ended.start - ended.born : 0);
    }
    uint64_t address_delta(uint64_t address) {
        uint64_t& base = bases_[current_].address;
        uint64_t delta = events_format::zigzag(static_cast<int64_t>(address - base));
        base = address;
        return delta;
    }

    uint64_t time_ = 0;
    uint64_t chunk_ = 0;          // chunks started
    uint64_t serial_ = 0;         // the chunk's current thread; 0: none yet
    size_t current_ = kNoThread;  // its entry in bases_
    ThreadBase bases_[kThreadBases + 1];
};

}  // namespace memusage
