// SPDX-License-Identifier: MIT
#include "read/mapped_data_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

using memusage::Record;

namespace {

// 3 MiB: a whole number of records and of pages, big enough that the per-chunk system
// calls cost nothing next to the reading.
constexpr std::size_t kChunkRecords = 131072;

struct FileDescriptor {
    int fd = -1;
    ~FileDescriptor() {
        if (fd >= 0) ::close(fd);
    }
};

std::string system_error(const char* what) {
    return std::string(what) + ": " + std::strerror(errno);
}

// A header only a few bytes long: best effort, since a read-only file still draws. A
// header with no end time (no record had one) would mislead every later reader.
void write_back_header(const std::string& path, const ProfileHeader& header) {
    if (header.end_time == 0) return;
    FileDescriptor file{::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) return;
    Record records[2];
    encode_header(header, records);
    [[maybe_unused]] ssize_t written = ::pwrite(file.fd, records, sizeof records, 0);
}

}  // namespace

MappedDataFile::~MappedDataFile() {
    if (map_ != nullptr) ::munmap(map_, map_size_);
    if (fd_ >= 0) ::close(fd_);
}

Status MappedDataFile::open(const std::string& path) {
    // Opening a FIFO for reading waits for a writer, possibly for ever: look first, and
    // open without waiting in case the name changes in between.
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return Failure{system_error("cannot open input file")};
    if (!S_ISREG(info.st_mode)) return Failure{"input file is not a regular file"};
    FileDescriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) return Failure{system_error("cannot open input file")};
    if (::fstat(file.fd, &info) != 0) return Failure{system_error("cannot read input file")};
    if (!S_ISREG(info.st_mode)) return Failure{"input file is not a regular file"};
    const auto size = static_cast<std::size_t>(info.st_size);
    if (size < memusage::kHeaderRecords * sizeof(Record)) {
        // Too short to map usefully; the parser still words the message.
        alignas(Record) std::byte too_short[memusage::kHeaderRecords * sizeof(Record)] = {};
        return parse_profile({too_short, size}, profile_);
    }

    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
    if (map == MAP_FAILED) return Failure{system_error("cannot map input file")};
    map_ = static_cast<std::byte*>(map);
    map_size_ = size;
    std::swap(fd_, file.fd);  // kept for the event mappings

    if (Status parsed = parse_profile({map_, map_size_}, profile_, HeaderRepair::leave);
        !parsed.ok())
        return parsed;
    if (profile_.header.repaired) {
        HeaderScan scan(*reinterpret_cast<const Record*>(map_));
        visit_events(0, profile_.events.size(),
                     [&](std::span<const Record> events) { scan.add(events); });
        profile_.header = scan.header();
        write_back_header(path, profile_.header);
    }
    return {};
}

namespace {

// Visits `events` in chunks, dropping the pages of each chunk once visited (only pages
// wholly inside `events`: a page shared with a neighbouring part may still be in use).
void visit_and_release(std::span<const Record> events, const MappedDataFile::ChunkVisitor& visit) {
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    auto released = (reinterpret_cast<uintptr_t>(events.data()) + page - 1) & ~(page - 1);
    while (!events.empty()) {
        const std::size_t count = std::min(events.size(), kChunkRecords);
        visit(events.first(count));
        events = events.subspan(count);
        const auto done = reinterpret_cast<uintptr_t>(events.data()) & ~(page - 1);
        if (done > released) {
            // The mapping is private and never written, so dropping its pages loses
            // nothing: they stay in the page cache, only this process stops counting them.
            ::madvise(reinterpret_cast<void*>(released), done - released, MADV_DONTNEED);
            released = done;
        }
    }
}

}  // namespace

void MappedDataFile::visit_events(uint64_t first, uint64_t count, const ChunkVisitor& visit) const {
    const std::span<const Record> events = profile_.events.subspan(first, count);
    if (events.empty()) return;
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t begin =
        static_cast<uint64_t>(reinterpret_cast<const std::byte*>(events.data()) - map_);
    const uint64_t end = begin + events.size_bytes();
    const uint64_t offset = begin & ~(page - 1);
    void* window =
        ::mmap(nullptr, end - offset, PROT_READ, MAP_PRIVATE, fd_, static_cast<off_t>(offset));
    if (window == MAP_FAILED) {
        // Out of address space or mappings: the file's own mapping serves, only slower
        // when shared between threads.
        visit_and_release(events, visit);
        return;
    }
    const auto* records =
        reinterpret_cast<const Record*>(static_cast<std::byte*>(window) + (begin - offset));
    visit_and_release({records, events.size()}, visit);
    ::munmap(window, end - offset);
}

}  // namespace memusagestat
