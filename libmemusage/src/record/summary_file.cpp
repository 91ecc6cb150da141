// SPDX-License-Identifier: MIT
#include "record/summary_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "memusage/summary_format.h"
#include "platform/clock.h"

namespace memusage {
namespace {

namespace format = summary_format;

// /proc/self/cmdline into `out`: its words, each ended by a NUL, cut after the last whole
// word that fits (or, for a first word longer than all, at the end with a NUL put there).
uint32_t read_command_line(char* out, uint32_t capacity) {
    const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    uint32_t bytes = 0;
    while (bytes < capacity) {
        const ssize_t n = ::read(fd, out + bytes, capacity - bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes += static_cast<uint32_t>(n);
    }
    ::close(fd);
    if (bytes == 0 || out[bytes - 1] == '\0') return bytes;
    uint32_t whole = bytes;
    while (whole > 0 && out[whole - 1] != '\0') --whole;
    if (whole > 0) return whole;
    out[bytes - 1] = '\0';
    return bytes;
}

}  // namespace

OpenResult SummaryFile::open(const char* path) {
    const OpenResult opened = file_.open(path);
    if (opened != OpenResult::opened) return opened;
    start_cycles_ = cycle_counter();
    start_ns_ = monotonic_nanoseconds();
    const int saved_errno = errno;
    command_bytes_ = read_command_line(command_, sizeof command_);
    errno = saved_errno;
    return OpenResult::opened;
}

bool SummaryFile::write(const Stats& stats, uint32_t flags) {
    write_error_ = 0;
    if (!file_.still_ours()) {
        write_error_ = ENOENT;  // removed, or replaced by another file of that name
        return false;
    }
    const int saved_errno = errno;
    format::FileHeader header = {};  // no magic until the figures are in
    header.version = format::kVersion;
    header.header_bytes = sizeof header;
    header.byte_order = format::kByteOrderMark;
    header.word_bytes = sizeof(void*);
    header.stats_bytes = format::kStatsBytes;
    header.flags = flags | (command_bytes_ != 0 ? format::kCommand : 0);
    header.pid = static_cast<uint64_t>(getpid());
    header.start_cycles = start_cycles_;
    header.start_ns = start_ns_;
    header.end_cycles = cycle_counter();
    header.end_ns = monotonic_nanoseconds();
    bool ok = write_fully_at(file_.fd(), &header, sizeof header, 0) &&
              write_fully_at(file_.fd(), &stats, sizeof stats, sizeof header) &&
              write_fully_at(file_.fd(), command_, command_bytes_, sizeof header + sizeof stats);
    if (ok) {
        memcpy(header.magic, format::kMagic, sizeof header.magic);
        ok = write_fully_at(file_.fd(), header.magic, sizeof header.magic, 0);
    }
    if (!ok) write_error_ = errno;
    file_.close();
    errno = saved_errno;
    return ok;
}

}  // namespace memusage
