// SPDX-License-Identifier: MIT
#include "read/sites_reader.h"

#include <fcntl.h>
#include <memusage/sites_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "read/machine_check.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

namespace format = memusage::sites_format;

// Reads fixed-size parts front to back; every read is checked against what is left.
class Cursor {
  public:
    explicit Cursor(std::span<const std::byte> bytes) : bytes_(bytes) {}

    template <typename T>
    bool take(T& value) {
        if (left() < sizeof(T)) return false;
        std::memcpy(&value, bytes_.data() + at_, sizeof(T));
        at_ += sizeof(T);
        return true;
    }
    bool take_string(std::string& out, uint64_t length) {
        if (left() < length) return false;
        out.assign(reinterpret_cast<const char*>(bytes_.data() + at_), length);
        at_ += length;
        return true;
    }
    bool skip_to_8() {
        uint64_t aligned = format::padded_to_8(at_);
        if (aligned > bytes_.size()) return false;
        at_ = aligned;
        return true;
    }
    void seek(uint64_t at) { at_ = at; }
    uint64_t at() const { return at_; }
    uint64_t left() const { return bytes_.size() - at_; }

  private:
    std::span<const std::byte> bytes_;
    uint64_t at_ = 0;
};

constexpr const char* kTruncated =
    "the sites file is truncated or damaged (was the run killed while writing it?)";

// The header, checked against the file's length and its trailer; what a version before
// the reader's lacks is set to what such a file means.
Status read_header(std::span<const std::byte> bytes, format::FileHeader& header) {
    header = {};
    if (bytes.size() < format::kVersion1HeaderBytes + sizeof(format::FileTrailer))
        return Failure{"not a memusage sites file (too short)"};
    // A version 1 header is shorter; what lies past it is checked against header_bytes below.
    std::memcpy(&header, bytes.data(), std::min(bytes.size(), sizeof header));
    if (std::memcmp(header.magic, format::kMagic, sizeof header.magic) != 0) {
        bool all_zero = true;
        for (char c : header.magic) all_zero = all_zero && c == 0;
        return Failure{all_zero ? kTruncated : "not a memusage sites file"};
    }
    if (memusage::machine_format::version_looks_swapped(header.version))
        return Failure{other_byte_order_message("the sites file")};
    if (header.version < 1 || header.version > format::kVersion)
        return Failure{"sites file version " + std::to_string(header.version) +
                       " is not supported (this memusagestat reads versions 1 to " +
                       std::to_string(format::kVersion) + ")"};
    uint32_t least_header_bytes = header.version == 1  ? format::kVersion1HeaderBytes
                                  : header.version < 4 ? format::kVersion3HeaderBytes
                                                       : format::kVersion4HeaderBytes;
    if (header.version < 4) header.machine = {};  // the reader's own kind of machine
    if (header.version == 1) {                    // no sampling, no refused call
        header.sample_interval = 0;
        header.first_refused_site = 0;
    }
    if (header.version < 3) {  // no stack peaks: the field was reserved
        header.stack_peak_count = 0;
        // kHasSiteExtras, kHasStandardStreamBuffers and kHasGrownAt stand alone, whatever the
        // version: no writer set them by chance.
        header.flags &= ~(format::kNoAllocationSites | format::kStackPeaksDropped);
    }
    format::FileTrailer trailer;
    std::memcpy(&trailer, bytes.data() + bytes.size() - sizeof trailer, sizeof trailer);
    if (std::memcmp(trailer.magic, format::kTrailerMagic, sizeof trailer.magic) != 0 ||
        trailer.file_bytes != bytes.size())
        return Failure{kTruncated};
    if (header.header_bytes < least_header_bytes || header.header_bytes % 8 != 0 ||
        header.header_bytes > bytes.size() - sizeof trailer)
        return Failure{kTruncated};
    return {};
}

void take_header(const format::FileHeader& header, SitesProfile& profile) {
    profile.heap_peak = header.heap_peak;
    profile.pid = header.pid;
    profile.ended_by_crash = (header.flags & format::kEndedByCrash) != 0;
    profile.stack_table_full = (header.flags & format::kStackTableFull) != 0;
    profile.unwinder_missing = (header.flags & format::kUnwinderMissing) != 0;
    profile.sample_interval = header.sample_interval;
    profile.first_refused_site = header.first_refused_site;
    profile.max_depth = header.max_depth;
    profile.has_allocation_sites = (header.flags & format::kNoAllocationSites) == 0;
    profile.stack_peaks_dropped = (header.flags & format::kStackPeaksDropped) != 0;
    profile.machine = header.machine;
    profile.has_heap_at_exit = (header.flags & format::kHasHeapAtExit) != 0 &&
                               header.header_bytes >= sizeof(format::FileHeader);
    profile.heap_at_exit = profile.has_heap_at_exit ? header.heap_at_exit : 0;
    profile.since_attach = (header.flags & format::kSinceAttach) != 0;
}

// Counts are bounded by what the file could hold before anything is reserved.
Status read_modules(Cursor& cursor, const format::FileHeader& header, SitesProfile& profile) {
    if (header.module_count > cursor.left() / sizeof(format::ModuleRecord))
        return Failure{kTruncated};
    profile.modules.reserve(header.module_count);
    for (uint32_t i = 0; i < header.module_count; ++i) {
        format::ModuleRecord record;
        SitesModule module;
        if (!cursor.take(record) || !cursor.take_string(module.build_id, record.build_id_bytes) ||
            !cursor.take_string(module.path, record.path_bytes) || !cursor.skip_to_8())
            return Failure{kTruncated};
        if (record.start > record.end) return Failure{kTruncated};
        module.load_bias = record.load_bias;
        module.start = record.start;
        module.end = record.end;
        profile.modules.push_back(std::move(module));
    }
    return {};
}

Status read_sites(Cursor& cursor, const format::FileHeader& header, SitesProfile& profile) {
    if (header.site_count > cursor.left() / sizeof(format::SiteRecord)) return Failure{kTruncated};
    profile.sites.reserve(header.site_count);
    for (uint32_t i = 0; i < header.site_count; ++i) {
        format::SiteRecord record;
        if (!cursor.take(record)) return Failure{kTruncated};
        if (record.depth > header.max_depth || record.depth > cursor.left() / sizeof(uint64_t))
            return Failure{kTruncated};
        AllocationSite site;
        site.blocks_allocated = record.blocks_allocated;
        site.bytes_allocated = record.bytes_allocated;
        site.blocks_freed = record.blocks_freed;
        site.bytes_freed = record.bytes_freed;
        site.bytes_at_peak = record.bytes_at_peak;
        site.id = record.id;
        site.frames.resize(record.depth);
        for (uint64_t& frame : site.frames) cursor.take(frame);
        profile.sites.push_back(std::move(site));
    }
    return {};
}

Status read_stack_peak(Cursor& cursor, const format::FileHeader& header, SitesProfile& profile) {
    format::StackPeakRecord record;
    if (!cursor.take(record)) return Failure{kTruncated};
    if (record.depth > format::kMaxStackPeakDepth ||
        record.depth > cursor.left() / sizeof(format::StackPeakFrame))
        return Failure{kTruncated};
    if (record.stack != format::kThreadStack && record.stack != format::kSignalStack)
        return Failure{kTruncated};
    StackPeak peak;
    peak.tid = record.tid;
    peak.main_thread = record.is_main != 0;
    peak.thread_name.assign(record.name, strnlen(record.name, sizeof record.name));
    peak.stack = record.stack == format::kSignalStack ? PeakStack::signal : PeakStack::thread;
    peak.from_tick = (record.flags & format::kPeakFromTick) != 0;
    peak.frames_cut = (record.flags & format::kPeakFramesCut) != 0;
    peak.time_ns = record.time_ns;
    peak.bytes = record.bytes;
    peak.base = record.base;
    peak.frames.resize(record.depth);
    for (StackPeak::Frame& frame : peak.frames) {
        format::StackPeakFrame stored;
        cursor.take(stored);
        frame = {stored.ip, stored.sp};
    }
    uint32_t outer = header.version >= 5 ? record.flags >> format::kPeakOuterShift : 0;
    if (outer > format::kMaxStackPeakOuter ||
        outer > cursor.left() / sizeof(format::StackPeakOuterFrame))
        return Failure{kTruncated};
    peak.outer.resize(outer);
    for (StackPeak::OuterFrame& frame : peak.outer) {
        format::StackPeakOuterFrame stored;
        cursor.take(stored);
        frame = {stored.ip, stored.bytes, stored.frames};
    }
    profile.stack_peaks.push_back(std::move(peak));
    return {};
}

Status read_stack_peaks(Cursor& cursor, const format::FileHeader& header, SitesProfile& profile) {
    if (header.stack_peak_count > cursor.left() / sizeof(format::StackPeakRecord))
        return Failure{kTruncated};
    profile.stack_peaks.reserve(header.stack_peak_count);
    for (uint32_t i = 0; i < header.stack_peak_count; ++i)
        if (Status read = read_stack_peak(cursor, header, profile); !read.ok()) return read;
    return {};
}

// The optional parts after the stack peaks, each there when its flag says so.
Status read_extras(Cursor& cursor, const format::FileHeader& header, SitesProfile& profile) {
    if ((header.flags & format::kHasSiteExtras) != 0) {
        if (profile.sites.size() > cursor.left() / sizeof(format::SiteExtraRecord))
            return Failure{kTruncated};
        for (AllocationSite& site : profile.sites) {
            format::SiteExtraRecord record;
            cursor.take(record);
            site.blocks_at_peak = record.blocks_at_peak;
            site.temporary_blocks = record.temporary_blocks;
            site.temporary_bytes = record.temporary_bytes;
        }
        profile.has_site_extras = true;
    }
    if ((header.flags & format::kHasStandardStreamBuffers) != 0) {
        uint64_t count = 0;
        if (cursor.left() < sizeof count) return Failure{kTruncated};
        cursor.take(count);
        if (count > format::kMaxStreamBuffers ||
            count > cursor.left() / sizeof(format::StreamBufferRecord))
            return Failure{kTruncated};
        for (uint64_t i = 0; i < count; ++i) {
            format::StreamBufferRecord record;
            cursor.take(record);
            profile.standard_stream_buffers.push_back(
                {record.site_id, record.bytes, record.address});
        }
        profile.knows_standard_streams = true;
    }
    if ((header.flags & format::kHasGrownAt) != 0) {
        uint64_t count = 0;
        if (cursor.left() < sizeof count) return Failure{kTruncated};
        cursor.take(count);
        if (count > format::kMaxGrownAtRecords ||
            count > cursor.left() / sizeof(format::GrownAtRecord))
            return Failure{kTruncated};
        for (uint64_t i = 0; i < count; ++i) {
            format::GrownAtRecord record;
            cursor.take(record);
            profile.grown.push_back({record.site_id, record.grown_at, record.bytes_at_peak,
                                     record.blocks_at_peak, record.bytes_at_exit,
                                     record.blocks_at_exit});
        }
        profile.knows_grown_at = true;
        profile.grown_at_table_full = (header.flags & format::kGrownAtTableFull) != 0;
    }
    return {};
}

}  // namespace

Status parse_sites(std::span<const std::byte> bytes, SitesProfile& profile) {
    profile = SitesProfile{};
    if (bytes.empty())
        return Failure{
            "the sites file is empty: the run did not end normally (killed, or ended "
            "with _exit or exec), or it was not the profiled process"};
    format::FileHeader header;
    if (Status read = read_header(bytes, header); !read.ok()) return read;

    // Without the trailer, so that no part can run into it.
    Cursor cursor(bytes.first(bytes.size() - sizeof(format::FileTrailer)));
    cursor.seek(header.header_bytes);
    take_header(header, profile);
    if (Status read = read_modules(cursor, header, profile); !read.ok()) return read;
    if (Status read = read_sites(cursor, header, profile); !read.ok()) return read;
    if (Status read = read_stack_peaks(cursor, header, profile); !read.ok()) return read;
    if (Status read = read_extras(cursor, header, profile); !read.ok()) return read;
    if (cursor.left() != 0) return Failure{kTruncated};
    return {};
}

Status read_sites_file(const std::string& path, SitesProfile& profile) {
    // Without O_NONBLOCK, opening a FIFO would wait for a writer; it is refused below.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Failure{"cannot open " + path + ": " + std::strerror(errno)};
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Failure{path + " is not a regular file"};
    }
    std::vector<std::byte> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    bytes.resize(done);  // a file that shrank while being read is checked as it was read
    Status parsed = parse_sites(bytes, profile);
    if (parsed.ok()) return parsed;
    return Failure{path + ": " + parsed.error()};
}

}  // namespace memusagestat
