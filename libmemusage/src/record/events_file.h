// SPDX-License-Identifier: MIT
// The event recording (MEMUSAGE_EVENTS) as the profiled process owns it: opened (and
// locked) at start, fed by the recorder's stream in its merged order, written a chunk at
// a time, and given its trailer at the end. Touched only by whoever adds to the stream
// (the recorder's lock holder, or the one thread recording directly). Allocation-free and
// async-signal-safe, so that a fatal signal's handler can complete it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "platform/owned_file.h"
#include "record/events_encoder.h"
#include "sites/site_accounts.h"

namespace memusage {

class EventsFile {
  public:
    static constexpr size_t kChunkBytes = size_t{256} * 1024;

    // Creates or truncates `path` (OwnedFile::open) and writes its header; `flags` are
    // events_format's header flags. `busy`: another process holds it. `failed`: errno
    // says why.
    OpenResult open(const char* path, uint32_t flags);
    bool is_open() const { return buffer_ != nullptr; }

    // The line saying, once, that writing failed goes to `sink` (owned_file.h).
    void report_write_errors_to(WarningSink sink) { warning_sink_ = sink; }

    // One event of the stream, by thread `serial` (from 1) and `tid`, at `time` (the
    // cycle counter); `site` is the event's site word (site_accounts.h). Events that
    // change no heap block are left out.
    void add(uint64_t serial, uint64_t tid, uint64_t time, uint32_t site,
             const BlockChange& block) {
        if (!EventsEncoder::is_block_event(block)) return;
        if (sampled_blocks_only_ && stack_id_of(site) == 0) return;
        if (__builtin_expect(write_failed_, 0)) {
            ++dropped_;
            return;
        }
        begin_adding(EventsEncoder::kMaxEventBytes, time);
        uint8_t* out = buffer_ + (end_ - chunk_start_);
        out = encoder_.event(out, serial, tid, time >> events_format::kTimeShift, block,
                             stack_id_of(site));
        ++chunk_events_;
        finish_adding(out);
    }
    // A thread's name, as it was when the thread ended (or at exit).
    void add_thread_name(uint64_t serial, const char* name);

    // The run is ending, maybe from a signal handler that interrupted an add() on this
    // thread: what that add committed is whole, and the records to come start a chunk of
    // their own, owing nothing to a half-made record. Before the last events are added.
    void settle_interrupted_add();
    // Writes what is buffered and the trailer (the end time and clock read now), and
    // closes the file. Safe to call again: nothing happens. Returns the counter's reading
    // the trailer holds (0 when there was no file to finish).
    uint64_t finish();
    // A forked child lets go of its parent's file: nothing is written.
    void close();

  private:
    // An add() is under way from here to finish_adding(): a signal handler that ends the
    // run in between (on this thread) finds the flag set and starts a new chunk, whose
    // delta state owes nothing to a half-made record.
    void begin_adding(size_t room, uint64_t time) {
        adding_.store(true, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        if (__builtin_expect(end_ - chunk_start_ + room > kChunkBytes, 0)) write_chunk();
        if (__builtin_expect(end_ == chunk_start_, 0)) start_chunk(time);
    }
    void finish_adding(uint8_t* out) {
        end_ = chunk_start_ + static_cast<uint64_t>(out - buffer_);  // the record counts now
        std::atomic_signal_fence(std::memory_order_seq_cst);
        adding_.store(false, std::memory_order_relaxed);
    }
    void start_chunk(uint64_t time);
    void write_chunk();
    void give_up_writing(int error);

    OwnedFile file_;
    uint8_t* buffer_ = nullptr;  // the chunk being filled (kChunkBytes of pages)
    uint64_t chunk_start_ = 0;   // where it goes in the file
    uint64_t end_ = 0;           // where its filled part ends in the file
    EventsEncoder encoder_;
    uint64_t chunk_events_ = 0;    // events in the chunk being filled
    uint64_t written_events_ = 0;  // events in the chunks written
    uint64_t dropped_ = 0;
    std::atomic<bool> adding_{false};
    bool write_failed_ = false;
    bool sampled_blocks_only_ = false;  // events_format::kSampledBlocksOnly
    WarningSink warning_sink_ = nullptr;
    // A reading of both clocks when the file was opened: a chunk's Clock pairs its first
    // time with the monotonic clock interpolated between this and a fresh reading.
    uint64_t open_cycles_ = 0, open_ns_ = 0;
};

}  // namespace memusage
