// SPDX-License-Identifier: MIT
#include "record/events_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "memusage/wide_arithmetic.h"
#include "platform/clock.h"
#include "platform/machine.h"
#include "platform/pages.h"

namespace memusage {
namespace {

namespace format = events_format;

}  // namespace

OpenResult EventsFile::open(const char* path, uint32_t flags) {
    const OpenResult opened = file_.open(path);
    if (opened != OpenResult::opened) return opened;
    format::FileHeader header = {};
    memcpy(header.magic, format::kMagic, sizeof header.magic);
    header.version = format::kVersion;
    header.header_bytes = sizeof header;
    header.time_shift = format::kTimeShift;
    header.flags = flags;
    sampled_blocks_only_ = (flags & format::kSampledBlocksOnly) != 0;
    header.pid = static_cast<uint64_t>(getpid());
    header.machine = {machine_format::kByteOrderMark, machine::kElfMachine, machine::kWordBytes,
                      machine::kDataFileTime};
    if (!write_fully_at(file_.fd(), &header, sizeof header, 0)) {
        file_.close();
        return OpenResult::failed;
    }
    buffer_ = static_cast<uint8_t*>(allocate_pages(kChunkBytes));
    if (buffer_ == nullptr) {
        file_.close();
        return OpenResult::failed;
    }
    chunk_start_ = end_ = sizeof header;
    open_cycles_ = cycle_counter();
    open_ns_ = monotonic_nanoseconds();
    return OpenResult::opened;
}

// The chunk's Clock pairs its first time with the monotonic clock at that instant, which
// has passed (the merge handles events stamped a while ago): interpolated on the line
// through the reading taken at the start and one taken now, the counter being invariant.
void EventsFile::start_chunk(uint64_t cycles) {
    if (cycles < open_cycles_) cycles = open_cycles_;
    uint64_t time = cycles >> format::kTimeShift;
    if (time < encoder_.time()) {  // never back in time from one chunk to the next
        time = encoder_.time();
        cycles = time << format::kTimeShift;
    }
    uint64_t now_cycles = cycle_counter();
    uint64_t now_ns = monotonic_nanoseconds();
    uint64_t ns = now_ns;
    if (cycles < now_cycles && now_cycles > open_cycles_) {
        ns = now_ns -
             multiply_divide(now_cycles - cycles, now_ns - open_ns_, now_cycles - open_cycles_);
    }
    uint8_t* out = encoder_.start_chunk(buffer_ + (end_ - chunk_start_), time, ns);
    end_ = chunk_start_ + static_cast<uint64_t>(out - buffer_);
}

// The chunk's first byte goes in last: a write cut short by SIGKILL leaves a 0 there,
// which readers take for the end (events_format.h). Written again from the start if a
// signal handler ending the run interrupted it: the same bytes at the same places.
void EventsFile::write_chunk() {
    if (end_ == chunk_start_ || write_failed_) return;
    if (!file_.still_ours()) {
        give_up_writing(EBADF);
        return;
    }
    int saved_errno = errno;
    size_t bytes = end_ - chunk_start_;
    auto at = static_cast<off_t>(chunk_start_);
    if (write_fully_at(file_.fd(), buffer_ + 1, bytes - 1, at + 1) &&
        write_fully_at(file_.fd(), buffer_, 1, at)) {
        written_events_ += chunk_events_;
        chunk_events_ = 0;
        chunk_start_ = end_;
    } else {
        give_up_writing(errno);
    }
    errno = saved_errno;
}

// A full file system, a file size limit: the whole chunks written so far stay, nothing
// more is written but the trailer (which counts what was dropped), and it is said once,
// with write(2) only.
void EventsFile::give_up_writing(int error) {
    write_failed_ = true;
    dropped_ += chunk_events_;
    chunk_events_ = 0;
    end_ = chunk_start_;
    if (file_.is_open()) {
        [[maybe_unused]] int ignored = ftruncate(file_.fd(), static_cast<off_t>(chunk_start_));
    }
    say_write_failed(warning_sink_, "events file", file_, error, "after event", written_events_);
}

void EventsFile::add_thread_name(uint64_t serial, const char* name) {
    if (!is_open() || write_failed_ || name[0] == '\0') return;
    begin_adding(EventsEncoder::kMaxNameBytes, encoder_.time() << format::kTimeShift);
    uint8_t* out = buffer_ + (end_ - chunk_start_);
    finish_adding(encoder_.thread_name(out, serial, name));
}

void EventsFile::settle_interrupted_add() {
    if (!is_open() || !adding_.load(std::memory_order_relaxed)) return;
    write_chunk();
    adding_.store(false, std::memory_order_relaxed);
}

uint64_t EventsFile::finish() {
    if (!is_open()) return 0;
    int saved_errno = errno;
    write_chunk();
    // After a failed write, what the last chunk gathered is dropped too.
    dropped_ += chunk_events_;
    chunk_events_ = 0;
    uint64_t end_time = cycle_counter();
    format::Trailer trailer = {};
    memcpy(trailer.magic, format::kTrailerMagic, sizeof trailer.magic);
    trailer.event_count = written_events_;
    uint64_t time = end_time >> format::kTimeShift;
    trailer.end_time = time > encoder_.time() ? time : encoder_.time();
    trailer.end_ns = monotonic_nanoseconds();
    trailer.dropped = dropped_;
    trailer.file_bytes = chunk_start_ + sizeof trailer;
    if (file_.still_ours() &&
        write_fully_at(file_.fd(), &trailer, sizeof trailer, static_cast<off_t>(chunk_start_))) {
        [[maybe_unused]] int ignored =
            ftruncate(file_.fd(), static_cast<off_t>(trailer.file_bytes));
    }
    errno = saved_errno;
    close();
    return end_time;
}

void EventsFile::close() {
    file_.close();
    buffer_ = nullptr;  // the pages stay: a forked child may be halfway through them
}

}  // namespace memusage
