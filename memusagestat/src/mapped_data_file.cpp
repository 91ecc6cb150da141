#include "mapped_data_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace memusagestat {

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

// A header only a few bytes long: best effort, since a read-only file still draws.
void write_back_header(const std::string& path, const ProfileHeader& header) {
    FileDescriptor file{::open(path.c_str(), O_WRONLY | O_CLOEXEC)};
    if (file.fd < 0) return;
    Record records[2];
    encode_header(header, records);
    [[maybe_unused]] ssize_t written = ::pwrite(file.fd, records, sizeof records, 0);
}

}  // namespace

MappedDataFile::~MappedDataFile() {
    if (map_ != nullptr) ::munmap(map_, map_size_);
}

std::string MappedDataFile::open(const std::string& path) {
    FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0) return system_error("cannot open input file");
    struct stat info {};
    if (::fstat(file.fd, &info) != 0) return system_error("cannot read input file");
    if (!S_ISREG(info.st_mode)) return "input file is not a regular file";
    const auto size = static_cast<std::size_t>(info.st_size);
    if (size < memusage::kHeaderRecords * sizeof(Record)) {
        // Too short to map usefully; the parser still words the message.
        alignas(Record) std::byte too_short[memusage::kHeaderRecords * sizeof(Record)] = {};
        return parse_profile({too_short, size}, profile_);
    }

    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
    if (map == MAP_FAILED) return system_error("cannot map input file");
    map_ = static_cast<std::byte*>(map);
    map_size_ = size;
    released_up_to_ = map_;
    ::madvise(map_, map_size_, MADV_SEQUENTIAL);

    std::string error = parse_profile({map_, map_size_}, profile_, HeaderRepair::leave);
    if (!error.empty()) return error;
    if (profile_.header.repaired) {
        HeaderScan scan(*reinterpret_cast<const Record*>(map_));
        for_each_chunk([&](std::span<const Record> events) { scan.add(events); });
        profile_.header = scan.header();
        write_back_header(path, profile_.header);
        released_up_to_ = map_;
    }
    return {};
}

void MappedDataFile::for_each_chunk(const std::function<void(std::span<const Record>)>& visit) {
    std::span<const Record> rest = profile_.events;
    while (!rest.empty()) {
        const std::size_t count = std::min(rest.size(), kChunkRecords);
        const auto* begin = reinterpret_cast<const std::byte*>(rest.data());
        const std::size_t bytes = count * sizeof(Record);
        // Fault the chunk in with one call instead of one fault per few pages.
        const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
        const auto first_page = reinterpret_cast<uintptr_t>(begin) & ~(page - 1);
        ::madvise(reinterpret_cast<void*>(first_page),
                  reinterpret_cast<uintptr_t>(begin) + bytes - first_page, MADV_POPULATE_READ);
        visit(rest.first(count));
        rest = rest.subspan(count);
        release_pages_before(begin + bytes);
    }
}

void MappedDataFile::release_pages_before(const std::byte* end) {
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    auto* aligned_end =
        reinterpret_cast<std::byte*>(reinterpret_cast<uintptr_t>(end) & ~(page - 1));
    if (aligned_end <= released_up_to_) return;
    // The mapping is private and never written, so dropping its pages loses nothing:
    // they stay in the page cache, only this process stops counting them.
    ::madvise(released_up_to_, static_cast<std::size_t>(aligned_end - released_up_to_),
              MADV_DONTNEED);
    released_up_to_ = aligned_end;
}

}  // namespace memusagestat
