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
constexpr std::size_t kReleaseStep = 1u << 20;
// More than a page fault maps around the page it faults on (64 KiB by default).
constexpr std::size_t kFaultAround = 1u << 20;
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
    at_.end = data_ + bytes.size();
    return parse_header();
}

Status EventsReader::parse_header() {
    std::size_t size = static_cast<std::size_t>(at_.end - data_);
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
    if (static_cast<std::size_t>(at_.end - begin_) >= sizeof trailer) {
        std::memcpy(&trailer, at_.end - sizeof trailer, sizeof trailer);
        if (std::memcmp(trailer.magic, format::kTrailerMagic, sizeof trailer.magic) == 0 &&
            trailer.file_bytes == size) {
            complete_ = true;
            at_.end -= sizeof trailer;
            trailer_event_count_ = trailer.event_count;
            trailer_end_time_ = trailer.end_time;
            trailer_end_ns_ = trailer.end_ns;
            dropped_ = trailer.dropped;
        }
    }
    if (complete_ && (trailer_end_time_ >> (64 - time_shift_ - 1)) != 0)
        return Failure{"events file trailer is damaged"};
    rewind();
    if (at_.cursor != at_.end &&
        (*at_.cursor != static_cast<uint8_t>(format::Kind::clock) || !read_clock()))
        return Failure{
            "events file is damaged: its first chunk does not start with a clock reading"};
    start_time_ = at_.time << time_shift_;
    start_ns_ = at_.last_clock_ns;
    rewind();
    return {};
}

void EventsReader::rewind() {
    at_.cursor = begin_;
    at_.released_to = begin_;
    at_.in_chunk = false;
    at_.described_made = 0;
    at_.chunk_index = SIZE_MAX;
    at_.current = &at_.no_thread;
    problem_.clear();
}

void EventsReader::read_chunk(size_t index, std::vector<RecordedEvent>& out,
                              bool (*keep)(const RecordedEvent&)) {
    out.clear();
    if (index >= chunk_starts_.size()) return;
    // The pass's place, put back after; the current thread's base into its state first, as a
    // switch of thread would.
    at_.current->address = at_.address;
    const Place pass = at_;
    std::string problem = std::move(problem_);

    at_.cursor = data_ + chunk_starts_[index];
    if (index + 1 < chunk_starts_.size()) at_.end = data_ + chunk_starts_[index + 1];
    at_.released_to = at_.cursor;
    at_.in_chunk = false;
    at_.chunk_index = index - 1;  // its clock makes it `index`
    const uint8_t* const chunk_end = at_.end;
    RecordedEvent event;
    while (next(event))
        if (keep == nullptr || keep(event)) out.push_back(event);
    // Its pages go back as the pass's do, and with them those after it that reading it mapped
    // again: a fault maps the pages around it that are in the page cache, so a chunk read
    // after the one that follows it would take some of that one's pages back each time.
    if (map_ != nullptr) {
        const auto room = static_cast<std::size_t>(data_ + map_size_ - chunk_end);
        at_.cursor = chunk_end + std::min(room, kFaultAround);
        release_pages_behind();
    }

    at_ = pass;
    problem_ = std::move(problem);
}

bool EventsReader::chunk_times(size_t index, uint64_t& first, uint64_t& last) const {
    if (index >= chunk_times_.size() || chunk_times_[index].last == kUnknownTime) return false;
    first = chunk_times_[index].first << time_shift_;
    last = chunk_times_[index].last << time_shift_;
    return true;
}

uint64_t EventsReader::end_time() const {
    if (complete_) return trailer_end_time_ << time_shift_;
    return at_.last_event_time > start_time_ ? at_.last_event_time : start_time_;
}

double EventsReader::seconds_per_cycle() const {
    uint64_t time = complete_ ? trailer_end_time_ : at_.last_clock_time;
    uint64_t ns = complete_ ? trailer_end_ns_ : at_.last_clock_ns;
    uint64_t start = start_time_ >> time_shift_;
    if (time <= start || ns <= start_ns_) return 0;
    return static_cast<double>(ns - start_ns_) * 1e-9 /
           static_cast<double>((time - start) << time_shift_);
}

bool EventsReader::fail(const char* why) {
    problem_ = "events file is damaged at byte " + std::to_string(at_.cursor - data_) + ": " + why;
    at_.cursor = at_.end;
    return false;
}

bool EventsReader::cut_short(const uint8_t* record_start, const char* why) {
    // A killed run's last write may have been cut short: a partial record at the very end
    // of an incomplete recording is where it stopped, not damage.
    if (!complete_ &&
        at_.end - record_start <= static_cast<long>(format::kMaxRecordBytes + kMaxThreadName)) {
        at_.cursor = at_.end;
        return false;
    }
    at_.cursor = record_start;
    return fail(why);
}

bool EventsReader::read_clock() {
    const uint8_t* start = at_.cursor++;
    const auto offset = static_cast<std::size_t>(start - data_);
    if (chunk_starts_.empty() || offset > chunk_starts_.back()) {
        chunk_starts_.push_back(offset);
        chunk_times_.push_back({0, kUnknownTime});
    }
    if (at_.in_chunk) note_chunk_end();
    uint64_t time, ns;
    if (!format::get_varint(&at_.cursor, at_.end, time) ||
        !format::get_varint(&at_.cursor, at_.end, ns))
        return cut_short(start, "a clock reading runs past the end");
    if ((time >> (64 - time_shift_ - 1)) != 0) return fail("a clock reading is out of range");
    at_.in_chunk = true;
    ++chunk_;  // every thread's base is the chunk's own from here
    if (++at_.chunk_index < chunk_times_.size()) chunk_times_[at_.chunk_index].first = time;
    at_.time = time;
    at_.address = 0;
    at_.thread = 0;
    at_.current = &at_.no_thread;
    at_.last_clock_time = time;
    at_.last_clock_ns = ns;
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
    at_.current->address = at_.address;
    at_.current = &state;
    at_.address = state.address;
    at_.thread = serial;
}

bool EventsReader::read_thread() {
    const uint8_t* start = at_.cursor++;
    uint64_t serial, tid;
    if (!format::get_varint(&at_.cursor, at_.end, serial) ||
        !format::get_varint(&at_.cursor, at_.end, tid))
        return cut_short(start, "a thread record runs past the end");
    if (serial == 0 || serial > UINT32_MAX) return fail("a thread serial is out of range");
    // Once a chunk for each thread: the list of threads is looked through only then.
    thread_info(static_cast<uint32_t>(serial)).tid = tid;
    ThreadState& state = thread_states_[static_cast<uint32_t>(serial)];
    switch_thread(static_cast<uint32_t>(serial), state);
    // After the switch, which put the base of the thread current until now back in its
    // state: that may be this one, named again.
    state = ThreadState{chunk_, 0};
    at_.address = 0;
    return true;
}

bool EventsReader::read_thread_again() {
    const uint8_t* start = at_.cursor++;
    uint64_t serial;
    if (!format::get_varint(&at_.cursor, at_.end, serial))
        return cut_short(start, "a thread record runs past the end");
    auto found = serial == 0 || serial > UINT32_MAX
                     ? thread_states_.end()
                     : thread_states_.find(static_cast<uint32_t>(serial));
    if (found == thread_states_.end() || found->second.chunk != chunk_) {
        at_.cursor = start;
        return fail("a thread comes back that its chunk did not name");
    }
    switch_thread(static_cast<uint32_t>(serial), found->second);
    return true;
}

bool EventsReader::read_thread_name() {
    const uint8_t* start = at_.cursor++;
    uint64_t serial, length;
    if (!format::get_varint(&at_.cursor, at_.end, serial) ||
        !format::get_varint(&at_.cursor, at_.end, length))
        return cut_short(start, "a thread name runs past the end");
    if (serial == 0 || serial > UINT32_MAX || length > kMaxThreadName)
        return fail("a thread name is out of range");
    if (length > static_cast<uint64_t>(at_.end - at_.cursor))
        return cut_short(start, "a thread name runs past the end");
    thread_info(static_cast<uint32_t>(serial))
        .name.assign(reinterpret_cast<const char*>(at_.cursor), length);
    at_.cursor += length;
    return true;
}

inline bool EventsReader::read_time(uint64_t& time) {
    uint64_t delta;
    if (!format::get_varint(&at_.cursor, at_.end, delta)) return false;
    if (__builtin_add_overflow(at_.time, delta, &at_.time) ||
        (at_.time >> (64 - time_shift_ - 1)) != 0)
        return false;
    time = at_.time << time_shift_;
    at_.last_event_time = time;
    return true;
}

inline bool EventsReader::read_address(uint64_t& address) {
    uint64_t delta;
    if (!format::get_varint(&at_.cursor, at_.end, delta)) return false;
    // Wraps like the writer's subtraction did.
    address = at_.address + static_cast<uint64_t>(format::unzigzag(delta));
    at_.address = address;
    return true;
}

void EventsReader::release_pages_behind() {
    long page = ::sysconf(_SC_PAGESIZE);
    auto from = reinterpret_cast<uintptr_t>(at_.released_to) & ~static_cast<uintptr_t>(page - 1);
    auto to = reinterpret_cast<uintptr_t>(at_.cursor) & ~static_cast<uintptr_t>(page - 1);
    if (from < reinterpret_cast<uintptr_t>(map_)) from = reinterpret_cast<uintptr_t>(map_);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    at_.released_to = at_.cursor;
}

bool EventsReader::next(RecordedEvent& event) {
    if (__builtin_expect(static_cast<std::size_t>(at_.cursor - at_.released_to) >= kReleaseStep,
                         0) &&
        map_ != nullptr)
        release_pages_behind();
    while (at_.cursor < at_.end) {
        auto kind = static_cast<format::Kind>(*at_.cursor);
        switch (read_bookkeeping(kind)) {
            case Bookkeeping::read:
                continue;
            case Bookkeeping::failed:
                return false;
            case Bookkeeping::none:
                return read_block_event(kind, event);
        }
    }
    if (at_.in_chunk) note_chunk_end();  // the end of the last chunk, every record read
    return false;
}

// The current chunk's records are all read: its last time is the latest of them (a chunk's
// times never go back).
void EventsReader::note_chunk_end() {
    if (at_.chunk_index < chunk_times_.size()) chunk_times_[at_.chunk_index].last = at_.time;
}

EventsReader::Bookkeeping EventsReader::read_bookkeeping(format::Kind kind) {
    auto done = [](bool read) { return read ? Bookkeeping::read : Bookkeeping::failed; };
    if (kind == format::Kind::clock) return done(read_clock());
    if (!at_.in_chunk) {
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
    if (!format::get_varint(&at_.cursor, at_.end, event.old_size) ||
        !format::get_varint(&at_.cursor, at_.end, site) ||
        !format::get_varint(&at_.cursor, at_.end, owner) ||
        !format::get_varint(&at_.cursor, at_.end, age) ||
        !format::get_varint(&at_.cursor, at_.end, lived_before))
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
    const uint8_t* record_start = at_.cursor++;
    event = RecordedEvent{};
    event.thread = at_.thread;
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
                format::get_varint(&at_.cursor, at_.end, event.size) &&
                format::get_varint(&at_.cursor, at_.end, site);
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
                format::get_varint(&at_.cursor, at_.end, moved) &&
                format::get_varint(&at_.cursor, at_.end, event.size) &&
                (!described_kind || read_description(event));
        event.address = event.old_address + static_cast<uint64_t>(format::unzigzag(moved));
        at_.address = event.address;
    } else {
        // A chunk's first byte reaches the file last (events_format.h): a 0 there in an
        // incomplete recording is the chunk a killed run was writing, not damage.
        if (!complete_ && kind == format::Kind{0}) {
            at_.cursor = at_.end;
            return false;
        }
        at_.cursor = record_start;
        return fail("unknown record kind");
    }
    if (!whole) return cut_short(record_start, "a record is cut short or out of range");
    if (makes_described(event)) ++at_.described_made;
    return true;
}

}  // namespace memusagestat
