// SPDX-License-Identifier: MIT
#include "read/events_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "memusage/events_format.h"
#include "read/machine_check.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace format = memusage::events_format;

namespace {

// Pages read are handed back in steps of this: the recording's length never shows in memory.
constexpr std::size_t kReleaseStep = 8u << 20;
constexpr std::size_t kMaxThreadName = 64;

std::string system_error(const char* what) {
    return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

EventsReader::~EventsReader() {
    if (map_ != nullptr) ::munmap(map_, map_size_);
}

Status EventsReader::open(const std::string& path) {
    // A FIFO would wait for a writer: look before opening, and open without waiting.
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return Failure{system_error("cannot open events file")};
    if (!S_ISREG(info.st_mode)) return Failure{"events file is not a regular file"};
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Failure{system_error("cannot open events file")};
    if (::fstat(fd, &info) != 0) {
        std::string message = system_error("cannot read events file");
        ::close(fd);
        return Failure{message};
    }
    if (info.st_size == 0) {
        ::close(fd);
        return Failure{"events file is empty"};
    }
    map_size_ = static_cast<std::size_t>(info.st_size);
    map_ = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map_ == MAP_FAILED) {
        map_ = nullptr;
        return Failure{system_error("cannot map events file")};
    }
    ::madvise(map_, map_size_, MADV_SEQUENTIAL);
    return open_bytes(std::span(static_cast<const std::byte*>(map_), map_size_));
}

Status EventsReader::open_bytes(std::span<const std::byte> bytes) {
    data_ = reinterpret_cast<const uint8_t*>(bytes.data());
    end_ = data_ + bytes.size();
    return parse_header();
}

Status EventsReader::parse_header() {
    std::size_t size = static_cast<std::size_t>(end_ - data_);
    format::FileHeader header = {};
    if (size < format::kVersion2HeaderBytes ||
        std::memcmp(data_, format::kMagic, sizeof format::kMagic) != 0)
        return Failure{"not an events file (no memusage event-recording header)"};
    std::memcpy(&header, data_, std::min(size, sizeof header));
    if (memusage::machine_format::version_looks_swapped(header.version))
        return Failure{other_byte_order_message("the events file")};
    if (header.version < 2 || header.version > format::kVersion)
        return Failure{"events file version " + std::to_string(header.version) +
                       " is not supported (this memusagestat reads versions 2 to " +
                       std::to_string(format::kVersion) + "; record the run again)"};
    const std::size_t least_header_bytes =
        header.version == 2 ? format::kVersion2HeaderBytes : sizeof header;
    if (header.version == 2) header.machine = {};  // the reader's own kind of machine
    if (header.header_bytes < least_header_bytes || header.header_bytes > size ||
        header.time_shift > 32)
        return Failure{"events file header is damaged"};
    machine_ = header.machine;
    version_ = header.version;
    time_shift_ = header.time_shift;
    has_sites_ = (header.flags & format::kHasSites) != 0;
    pid_ = header.pid;
    begin_ = data_ + header.header_bytes;

    format::Trailer trailer;
    if (static_cast<std::size_t>(end_ - begin_) >= sizeof trailer) {
        std::memcpy(&trailer, end_ - sizeof trailer, sizeof trailer);
        if (std::memcmp(trailer.magic, format::kTrailerMagic, sizeof trailer.magic) == 0 &&
            trailer.file_bytes == size) {
            complete_ = true;
            end_ -= sizeof trailer;
            trailer_event_count_ = trailer.event_count;
            trailer_end_time_ = trailer.end_time;
            trailer_end_ns_ = trailer.end_ns;
            dropped_ = trailer.dropped;
        }
    }
    if (complete_ && (trailer_end_time_ >> (64 - time_shift_ - 1)) != 0)
        return Failure{"events file trailer is damaged"};
    rewind();
    if (cursor_ != end_ && (*cursor_ != static_cast<uint8_t>(format::Kind::clock) || !read_clock()))
        return Failure{
            "events file is damaged: its first chunk does not start with a clock reading"};
    start_time_ = time_ << time_shift_;
    start_ns_ = last_clock_ns_;
    rewind();
    return {};
}

void EventsReader::rewind() {
    cursor_ = begin_;
    released_to_ = begin_;
    in_chunk_ = false;
    described_made_ = 0;
    problem_.clear();
}

void EventsReader::read_chunk(size_t index, std::vector<RecordedEvent>& out) {
    out.clear();
    if (index >= chunk_starts_.size()) return;
    // The pass's state, put back after.
    const uint8_t *cursor = cursor_, *end = end_, *released_to = released_to_;
    const bool in_chunk = in_chunk_;
    const uint64_t time = time_, address = address_, last_event_time = last_event_time_;
    const uint64_t last_clock_time = last_clock_time_, last_clock_ns = last_clock_ns_;
    const uint64_t described_made = described_made_;
    const uint32_t thread = thread_;
    ThreadState* const current = current_;
    const ThreadState no_thread = no_thread_;
    std::string problem = std::move(problem_);
    current_->address = address_;

    cursor_ = data_ + chunk_starts_[index];
    if (index + 1 < chunk_starts_.size()) end_ = data_ + chunk_starts_[index + 1];
    released_to_ = cursor_;
    in_chunk_ = false;
    RecordedEvent event;
    while (next(event)) out.push_back(event);
    // Its pages go back as the pass's do (from released_to_, the chunk's start, to its end).
    if (map_ != nullptr) release_pages_behind();

    cursor_ = cursor;
    end_ = end;
    released_to_ = released_to;
    in_chunk_ = in_chunk;
    time_ = time;
    last_event_time_ = last_event_time;
    last_clock_time_ = last_clock_time;
    last_clock_ns_ = last_clock_ns;
    described_made_ = described_made;
    thread_ = thread;
    no_thread_ = no_thread;
    current_ = current;
    address_ = address;
    problem_ = std::move(problem);
}

uint64_t EventsReader::end_time() const {
    if (complete_) return trailer_end_time_ << time_shift_;
    return last_event_time_ > start_time_ ? last_event_time_ : start_time_;
}

double EventsReader::seconds_per_cycle() const {
    uint64_t time = complete_ ? trailer_end_time_ : last_clock_time_;
    uint64_t ns = complete_ ? trailer_end_ns_ : last_clock_ns_;
    uint64_t start = start_time_ >> time_shift_;
    if (time <= start || ns <= start_ns_) return 0;
    return static_cast<double>(ns - start_ns_) * 1e-9 /
           static_cast<double>((time - start) << time_shift_);
}

bool EventsReader::fail(const char* why) {
    problem_ = "events file is damaged at byte " + std::to_string(cursor_ - data_) + ": " + why;
    cursor_ = end_;
    return false;
}

bool EventsReader::cut_short(const uint8_t* record_start, const char* why) {
    // A killed run's last write may have been cut short: a partial record at the very end
    // of an incomplete recording is where it stopped, not damage.
    if (!complete_ &&
        end_ - record_start <= static_cast<long>(format::kMaxRecordBytes + kMaxThreadName)) {
        cursor_ = end_;
        return false;
    }
    cursor_ = record_start;
    return fail(why);
}

bool EventsReader::read_clock() {
    const uint8_t* start = cursor_++;
    const auto offset = static_cast<std::size_t>(start - data_);
    if (chunk_starts_.empty() || offset > chunk_starts_.back()) chunk_starts_.push_back(offset);
    uint64_t time, ns;
    if (!format::get_varint(&cursor_, end_, time) || !format::get_varint(&cursor_, end_, ns))
        return cut_short(start, "a clock reading runs past the end");
    if ((time >> (64 - time_shift_ - 1)) != 0) return fail("a clock reading is out of range");
    in_chunk_ = true;
    ++chunk_;  // every thread's base is the chunk's own from here
    time_ = time;
    address_ = 0;
    thread_ = 0;
    current_ = &no_thread_;
    last_clock_time_ = time;
    last_clock_ns_ = ns;
    return true;
}

ThreadInfo& EventsReader::thread_info(uint32_t serial) {
    auto at =
        std::lower_bound(threads_.begin(), threads_.end(), serial,
                         [](const ThreadInfo& thread, uint32_t s) { return thread.serial < s; });
    if (at != threads_.end() && at->serial == serial) return *at;
    return *threads_.insert(at, ThreadInfo{serial, 0, {}});
}

// The current thread's base goes back to its state, the new thread's comes out of its own.
inline void EventsReader::switch_thread(uint32_t serial, ThreadState& state) {
    current_->address = address_;
    current_ = &state;
    address_ = state.address;
    thread_ = serial;
}

bool EventsReader::read_thread() {
    const uint8_t* start = cursor_++;
    uint64_t serial, tid;
    if (!format::get_varint(&cursor_, end_, serial) || !format::get_varint(&cursor_, end_, tid))
        return cut_short(start, "a thread record runs past the end");
    if (serial == 0 || serial > UINT32_MAX) return fail("a thread serial is out of range");
    // Once a chunk for each thread: the list of threads is looked through only then.
    thread_info(static_cast<uint32_t>(serial)).tid = tid;
    ThreadState& state = thread_states_[static_cast<uint32_t>(serial)];
    switch_thread(static_cast<uint32_t>(serial), state);
    // After the switch, which put the base of the thread current until now back in its
    // state: that may be this one, named again.
    state = ThreadState{chunk_, 0};
    address_ = 0;
    return true;
}

bool EventsReader::read_thread_again() {
    const uint8_t* start = cursor_++;
    uint64_t serial;
    if (!format::get_varint(&cursor_, end_, serial))
        return cut_short(start, "a thread record runs past the end");
    auto found = serial == 0 || serial > UINT32_MAX
                     ? thread_states_.end()
                     : thread_states_.find(static_cast<uint32_t>(serial));
    if (found == thread_states_.end() || found->second.chunk != chunk_) {
        cursor_ = start;
        return fail("a thread comes back that its chunk did not name");
    }
    switch_thread(static_cast<uint32_t>(serial), found->second);
    return true;
}

bool EventsReader::read_thread_name() {
    const uint8_t* start = cursor_++;
    uint64_t serial, length;
    if (!format::get_varint(&cursor_, end_, serial) || !format::get_varint(&cursor_, end_, length))
        return cut_short(start, "a thread name runs past the end");
    if (serial == 0 || serial > UINT32_MAX || length > kMaxThreadName)
        return fail("a thread name is out of range");
    if (length > static_cast<uint64_t>(end_ - cursor_))
        return cut_short(start, "a thread name runs past the end");
    thread_info(static_cast<uint32_t>(serial))
        .name.assign(reinterpret_cast<const char*>(cursor_), length);
    cursor_ += length;
    return true;
}

inline bool EventsReader::read_time(uint64_t& time) {
    uint64_t delta;
    if (!format::get_varint(&cursor_, end_, delta)) return false;
    if (__builtin_add_overflow(time_, delta, &time_) || (time_ >> (64 - time_shift_ - 1)) != 0)
        return false;
    time = time_ << time_shift_;
    last_event_time_ = time;
    return true;
}

inline bool EventsReader::read_address(uint64_t& address) {
    uint64_t delta;
    if (!format::get_varint(&cursor_, end_, delta)) return false;
    // Wraps like the writer's subtraction did.
    address = address_ + static_cast<uint64_t>(format::unzigzag(delta));
    address_ = address;
    return true;
}

void EventsReader::release_pages_behind() {
    long page = ::sysconf(_SC_PAGESIZE);
    auto from = reinterpret_cast<uintptr_t>(released_to_) & ~static_cast<uintptr_t>(page - 1);
    auto to = reinterpret_cast<uintptr_t>(cursor_) & ~static_cast<uintptr_t>(page - 1);
    if (from < reinterpret_cast<uintptr_t>(map_)) from = reinterpret_cast<uintptr_t>(map_);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    released_to_ = cursor_;
}

bool EventsReader::next(RecordedEvent& event) {
    if (__builtin_expect(static_cast<std::size_t>(cursor_ - released_to_) >= kReleaseStep, 0) &&
        map_ != nullptr)
        release_pages_behind();
    while (cursor_ < end_) {
        auto kind = static_cast<format::Kind>(*cursor_);
        switch (read_bookkeeping(kind)) {
            case Bookkeeping::read:
                continue;
            case Bookkeeping::failed:
                return false;
            case Bookkeeping::none:
                return read_block_event(kind, event);
        }
    }
    return false;
}

EventsReader::Bookkeeping EventsReader::read_bookkeeping(format::Kind kind) {
    auto done = [](bool read) { return read ? Bookkeeping::read : Bookkeeping::failed; };
    if (kind == format::Kind::clock) return done(read_clock());
    if (!in_chunk_) {
        fail("a record comes before its chunk's clock reading");
        return Bookkeeping::failed;
    }
    if (kind == format::Kind::thread_again) return done(read_thread_again());
    if (kind == format::Kind::thread) return done(read_thread());
    if (kind == format::Kind::thread_name) return done(read_thread_name());
    return Bookkeeping::none;
}

bool EventsReader::read_description(RecordedEvent& event) {
    uint64_t site = 0, owner = 0, age = 0, lived_before = 0;
    if (!format::get_varint(&cursor_, end_, event.old_size) ||
        !format::get_varint(&cursor_, end_, site) || !format::get_varint(&cursor_, end_, owner) ||
        !format::get_varint(&cursor_, end_, age) ||
        !format::get_varint(&cursor_, end_, lived_before))
        return false;
    // In the recording's units: never before the run's start.
    const uint64_t shifted = event.time >> time_shift_;
    if (site > UINT32_MAX || owner > UINT32_MAX || age > shifted || lived_before > shifted - age)
        return false;
    if (!read_descriptions_) {
        event.described = false;
        event.old_size = 0;
        return true;
    }
    event.site = static_cast<uint32_t>(site);
    event.owner = static_cast<uint32_t>(owner);
    event.start = (shifted - age) << time_shift_;
    event.born = (shifted - age - lived_before) << time_shift_;
    return true;
}

bool EventsReader::read_block_event(format::Kind kind, RecordedEvent& event) {
    const uint8_t* record_start = cursor_++;
    event = RecordedEvent{};
    event.thread = thread_;
    const bool described_kind =
        version_ >= format::kFirstDescribedVersion &&
        (kind == format::Kind::allocate_described || kind == format::Kind::release_described ||
         kind == format::Kind::resize_described);
    if (described_kind) {
        event.described = read_descriptions_;
        kind = kind == format::Kind::allocate_described  ? format::Kind::allocate
               : kind == format::Kind::release_described ? format::Kind::release
                                                         : format::Kind::resize;
    }
    bool whole = read_time(event.time);
    if (kind == format::Kind::allocate) {
        uint64_t site = 0;
        event.kind = RecordedEvent::Kind::allocate;
        whole = whole && read_address(event.address) &&
                format::get_varint(&cursor_, end_, event.size) &&
                format::get_varint(&cursor_, end_, site);
        if (whole && site > UINT32_MAX) return fail("a site id is out of range");
        event.site = static_cast<uint32_t>(site);
    } else if (kind == format::Kind::release) {
        event.kind = RecordedEvent::Kind::release;
        whole =
            whole && read_address(event.address) && (!described_kind || read_description(event));
    } else if (kind == format::Kind::resize) {
        uint64_t moved = 0;
        event.kind = RecordedEvent::Kind::resize;
        whole = whole && read_address(event.old_address) &&
                format::get_varint(&cursor_, end_, moved) &&
                format::get_varint(&cursor_, end_, event.size) &&
                (!described_kind || read_description(event));
        event.address = event.old_address + static_cast<uint64_t>(format::unzigzag(moved));
        address_ = event.address;
    } else {
        // A chunk's first byte reaches the file last (events_format.h): a 0 there in an
        // incomplete recording is the chunk a killed run was writing, not damage.
        if (!complete_ && kind == format::Kind{0}) {
            cursor_ = end_;
            return false;
        }
        cursor_ = record_start;
        return fail("unknown record kind");
    }
    if (!whole) return cut_short(record_start, "a record is cut short or out of range");
    if (makes_described(event)) ++described_made_;
    return true;
}

}  // namespace memusagestat
