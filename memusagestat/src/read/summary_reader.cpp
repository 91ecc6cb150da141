// SPDX-License-Identifier: MIT
#include "read/summary_reader.h"

#include <fcntl.h>
#include <memusage/summary_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

namespace format = memusage::summary_format;

uint32_t byte_swapped(uint32_t value) { return __builtin_bswap32(value); }

}  // namespace

double RunSummary::seconds_per_cycle() const {
    if (end_cycles <= start_cycles || end_ns <= start_ns) return 0;
    return static_cast<double>(end_ns - start_ns) * 1e-9 /
           static_cast<double>(end_cycles - start_cycles);
}

Status parse_summary(std::span<const std::byte> bytes, RunSummary& summary) {
    summary = RunSummary{};
    format::FileHeader header{};
    if (bytes.size() < sizeof header.magic ||
        std::memcmp(bytes.data(), format::kMagic, sizeof header.magic) != 0)
        return Failure{
            "not a memusage summary file (or one whose run was killed while writing it)"};
    // Enough of the header to tell whose it is: magic, version, size, byte order.
    constexpr size_t kIdentity = offsetof(format::FileHeader, stats_bytes);
    if (bytes.size() < kIdentity) return Failure{"the summary file is cut short"};
    std::memcpy(&header, bytes.data(), kIdentity);
    if (header.byte_order == byte_swapped(format::kByteOrderMark))
        return Failure{
            "the summary file was written on a machine of the other byte order; read it "
            "there"};
    if (header.byte_order != format::kByteOrderMark)
        return Failure{"the summary file is damaged (its byte-order mark is wrong)"};
    if (header.version > format::kVersion)
        return Failure{"the summary file is of version " + std::to_string(header.version) +
                       ", newer than this memusagestat reads (" + std::to_string(format::kVersion) +
                       "): use the memusagestat of the memusage that wrote it"};
    if (header.version == 0) return Failure{"the summary file is damaged (version 0)"};
    // The word size is not checked: every field is 64 bits wide wherever it was written, so
    // a 32-bit board's file reads here as it was written (stats_bytes says the layout).
    if (header.header_bytes < sizeof header || header.header_bytes > bytes.size())
        return Failure{"the summary file is damaged or cut short (its header)"};
    std::memcpy(&header, bytes.data(), sizeof header);
    if (header.stats_bytes != format::kStatsBytes)
        return Failure{"the summary file is damaged (its figures take " +
                       std::to_string(header.stats_bytes) + " bytes, not " +
                       std::to_string(format::kStatsBytes) + ")"};
    if (bytes.size() - header.header_bytes < header.stats_bytes)
        return Failure{"the summary file is damaged or cut short (its figures)"};
    std::memcpy(&summary.stats, bytes.data() + header.header_bytes, sizeof summary.stats);
    // Version 2's command line: the rest of the file, words ended by NULs.
    const auto* rest =
        reinterpret_cast<const char*>(bytes.data()) + header.header_bytes + header.stats_bytes;
    const size_t rest_bytes = bytes.size() - header.header_bytes - header.stats_bytes;
    const bool with_command = header.version >= 2 && (header.flags & format::kCommand) != 0;
    if (!with_command && rest_bytes != 0)
        return Failure{"the summary file is damaged (bytes after its figures)"};
    if (with_command) {
        if (rest_bytes == 0 || rest_bytes > format::kMostCommandBytes || rest[rest_bytes - 1] != 0)
            return Failure{"the summary file is damaged (its command line)"};
        for (size_t i = 0; i + 1 < rest_bytes; ++i)
            summary.command += rest[i] == '\0' ? ' ' : rest[i];
    }
    summary.mmap_rows = (header.flags & format::kMmapRows) != 0;
    summary.pid = header.pid;
    summary.start_cycles = header.start_cycles;
    summary.start_ns = header.start_ns;
    summary.end_cycles = header.end_cycles;
    summary.end_ns = header.end_ns;
    return {};
}

Status read_summary_file(const std::string& path, RunSummary& summary) {
    // Without O_NONBLOCK, opening a FIFO would wait for a writer; it is refused below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Failure{"cannot open " + path + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Failure{path + " is not a regular file"};
    }
    // Far larger than any summary file: a wrong file is refused before it is read whole.
    constexpr off_t kMostBytes = 1 << 20;
    if (st.st_size > kMostBytes) {
        ::close(fd);
        return Failure{path + ": not a memusage summary file (too large)"};
    }
    std::vector<std::byte> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    bytes.resize(done);
    Status parsed = parse_summary(bytes, summary);
    if (parsed.ok()) return parsed;
    return Failure{path + ": " + parsed.error()};
}

}  // namespace memusagestat
