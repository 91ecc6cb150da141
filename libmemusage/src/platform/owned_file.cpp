// SPDX-License-Identifier: MIT
#include "platform/owned_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/quiet_writes.h"

namespace memusage {
namespace {

// Out of the way of the small descriptor numbers programs assume are theirs.
constexpr int kPreferredFd = 900;

int move_out_of_the_way(int fd) {
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, kPreferredFd);
    if (moved < 0) return fd;
    ::close(fd);
    return moved;
}

// close(2) may set errno (EINTR, EIO): the reason a caller reports is the failure's before it.
void close_keeping_errno(int fd) {
    const int error = errno;
    ::close(fd);
    errno = error;
}

}  // namespace

bool OwnedFile::keepable(const char* path) {
    size_t length = strlen(path);
    return length != 0 && length < kMaxPath;
}

OpenResult OwnedFile::open(const char* path, const FileState* untouched_since) {
    if (!keepable(path)) {
        errno = path[0] == '\0' ? ENOENT : ENAMETOOLONG;  // what open(2) would say
        return OpenResult::failed;
    }
    constexpr int kFlags = O_WRONLY | O_NONBLOCK | O_CLOEXEC;
    // A file this process creates is untouched by definition.
    int fd = untouched_since != nullptr ? ::open(path, kFlags | O_CREAT | O_EXCL, 0666) : -1;
    const bool created = fd >= 0;
    if (!created) fd = ::open(path, kFlags | O_CREAT, 0666);
    if (fd < 0) return OpenResult::failed;
    // Another process's lock: one of the run writes the file, or another run's collector.
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            close_keeping_errno(fd);
            return OpenResult::failed;
        }
        struct stat now;
        const bool held = untouched_since != nullptr && fstat(fd, &now) == 0 &&
                          FileState::of(now) == *untouched_since;
        ::close(fd);
        return held ? OpenResult::held : OpenResult::busy;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close_keeping_errno(fd);
        return OpenResult::failed;
    }
    // Nor a file that an earlier process of the run wrote and finished.
    if (!created && untouched_since != nullptr && !(FileState::of(st) == *untouched_since)) {
        ::close(fd);
        return OpenResult::busy;
    }
    if (ftruncate(fd, 0) != 0) {  // a FIFO or a device: EINVAL
        close_keeping_errno(fd);
        return OpenResult::failed;
    }
    take(fd, path, st);
    return OpenResult::opened;
}

void OwnedFile::take(int fd, const char* path, const struct stat& st) {
    fd_ = move_out_of_the_way(fd);
    device_ = st.st_dev;
    inode_ = st.st_ino;
    memcpy(path_, path, strlen(path) + 1);
}

// Programs close descriptors they did not open (closefrom, daemonising).
bool OwnedFile::still_ours() {
    if (fd_ < 0) return false;
    struct stat st;
    if (fstat(fd_, &st) == 0 && st.st_dev == device_ && st.st_ino == inode_) return true;
    int fd = ::open(path_, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_dev != device_ || st.st_ino != inode_) {
        if (fd >= 0) ::close(fd);
        fd_ = -1;
        return false;
    }
    fd_ = move_out_of_the_way(fd);
    return true;
}

void OwnedFile::close() {
    if (fd_ >= 0) close_keeping_errno(fd_);
    fd_ = -1;
}

bool write_fully_at(int fd, const void* data, size_t bytes, off_t offset, size_t* written) {
    QuietWrites quiet;
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        ssize_t n = pwrite(fd, p, bytes, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) errno = ENOSPC;  // no progress and no reason: the device is full
        if (n <= 0) return false;
        p += n;
        bytes -= static_cast<size_t>(n);
        offset += n;
        if (written != nullptr) *written += static_cast<size_t>(n);
    }
    return true;
}

namespace {

// A number in `base` at `*at`, which moves past it; false when there is none.
bool parse_number(const char*& at, const char* end, unsigned base, unsigned long& value) {
    value = 0;
    const char* start = at;
    for (; at < end; ++at) {
        unsigned digit = *at >= '0' && *at <= '9'   ? static_cast<unsigned>(*at - '0')
                         : *at >= 'a' && *at <= 'f' ? static_cast<unsigned>(*at - 'a' + 10)
                                                    : base;
        if (digit >= base) break;
        value = value * base + digit;
    }
    return at != start;
}

// The next word of the line, `*at` moved past it and the blanks before it.
const char* next_word(const char*& at, const char* end, size_t& length) {
    while (at < end && *at == ' ') ++at;
    const char* word = at;
    while (at < end && *at != ' ') ++at;
    length = static_cast<size_t>(at - word);
    return word;
}

bool word_is(const char* word, size_t length, const char* expected) {
    return length == strlen(expected) && memcmp(word, expected, length) == 0;
}

// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF": the pid when the line is a granted
// exclusive flock on the file (device, inode), else 0. A waiter's line has "->".
long flock_writer_in(const char* line, const char* end, const struct stat& file) {
    size_t length = 0;
    const char* word = next_word(line, end, length);  // "1:"
    word = next_word(line, end, length);
    if (!word_is(word, length, "FLOCK")) return 0;
    next_word(line, end, length);  // ADVISORY
    word = next_word(line, end, length);
    if (!word_is(word, length, "WRITE")) return 0;
    unsigned long pid = 0, device_major = 0, device_minor = 0, inode = 0;
    while (line < end && *line == ' ') ++line;
    if (!parse_number(line, end, 10, pid) || line == end || *line++ != ' ') return 0;
    if (!parse_number(line, end, 16, device_major) || line == end || *line++ != ':') return 0;
    if (!parse_number(line, end, 16, device_minor) || line == end || *line++ != ':') return 0;
    if (!parse_number(line, end, 10, inode)) return 0;
    bool same = inode == file.st_ino && device_major == major(file.st_dev) &&
                device_minor == minor(file.st_dev);
    return same ? static_cast<long>(pid) : 0;
}

}  // namespace

long lock_holder(const char* path) {
    struct stat file;
    if (stat(path, &file) != 0) return 0;
    int fd = ::open("/proc/locks", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buffer[4096];
    size_t kept = 0;  // the start of a line the last read cut
    long holder = 0;
    for (;;) {
        ssize_t n = read(fd, buffer + kept, sizeof buffer - kept);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        const char* end = buffer + kept + n;
        const char* line = buffer;
        for (const char* newline; (newline = static_cast<const char*>(
                                       memchr(line, '\n', static_cast<size_t>(end - line))));
             line = newline + 1) {
            if (memmem(line, static_cast<size_t>(newline - line), "->", 2) == nullptr &&
                holder == 0)
                holder = flock_writer_in(line, newline, file);
        }
        kept = static_cast<size_t>(end - line);
        if (kept == sizeof buffer) kept = 0;  // no line is that long: dropped
        memmove(buffer, line, kept);
    }
    ::close(fd);
    return holder;
}

namespace {

// Decimal digits of `value` into `out` (room for 20), returning how many.
size_t format_decimal(uint64_t value, char* out) {
    char reversed[20];
    size_t n = 0;
    do {
        reversed[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
    return n;
}

}  // namespace

void say_write_failed(WarningSink sink, const char* what, const OwnedFile& file, int error,
                      const char* after, uint64_t number) {
    if (sink == nullptr) return;
    const char* reason = strerrordesc_np(error);
    char digits[20];
    size_t digit_count = format_decimal(number, digits);
    char line[OwnedFile::kMaxPath + 160];
    size_t n = 0;
    auto add = [&](const char* text, size_t length) {
        for (size_t i = 0; i < length && n < sizeof(line) - 1; ++i) line[n++] = text[i];
    };
    auto add_text = [&](const char* text) { add(text, strlen(text)); };
    add_text("memusage: cannot write the ");
    add_text(what);
    add_text(" ");
    add_text(file.path());
    add_text(": ");
    add_text(reason != nullptr ? reason : "unknown error");
    add_text("; it stops ");
    add_text(after);
    add_text(" ");
    add(digits, digit_count);
    add_text("\n");
    sink(line, n);
}

}  // namespace memusage
