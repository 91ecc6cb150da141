// SPDX-License-Identifier: MIT
#include "publish/shared_figures.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

#include "platform/pages.h"
#include "platform/quiet_writes.h"

namespace memusage::publish {
namespace {

size_t append_number(char* out, uint64_t value) {
    char digits[24];
    size_t count = 0;
    do digits[count++] = static_cast<char>('0' + value % 10);
    while ((value /= 10) != 0);
    for (size_t i = 0; i < count; ++i) out[i] = digits[count - 1 - i];
    return count;
}

uint64_t monotonic_ns() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

int open_new(const char* path) {
    return open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

}  // namespace

namespace {

// Field `field` of a /proc stat file (1: the pid, 3: the state, 20: the threads, 22: the
// start time), as read with system calls only; `text` receives it. False if unreadable.
bool stat_field(const char* path, int field, char (&text)[32]) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char content[1024];
    ssize_t length = read(fd, content, sizeof content - 1);
    close(fd);
    if (length <= 0) return false;
    content[length] = '\0';
    // The name in parentheses may hold anything: the fields count from its last ')'.
    const char* p = strrchr(content, ')');
    if (p == nullptr || field < 3) return false;
    p += 2;  // field 3
    for (int at = 3; at < field && *p != '\0'; ++p)
        if (*p == ' ') ++at;
    size_t n = 0;
    while (p[n] != ' ' && p[n] != '\0' && p[n] != '\n' && n < sizeof text - 1) {
        text[n] = p[n];
        ++n;
    }
    text[n] = '\0';
    return n > 0;
}

uint64_t number_of(const char (&text)[32]) {
    uint64_t value = 0;
    for (const char* p = text; *p >= '0' && *p <= '9'; ++p)
        value = value * 10 + static_cast<uint64_t>(*p - '0');
    return value;
}

void proc_path(char (&path)[64], const char* before, uint64_t number, const char* after) {
    size_t n = strlen(before);
    memcpy(path, before, n);
    n += append_number(path + n, number);
    memcpy(path + n, after, strlen(after) + 1);
}

}  // namespace

uint64_t start_ticks_of(pid_t pid) {
    char path[64], text[32];
    proc_path(path, "/proc/", static_cast<uint64_t>(pid), "/stat");
    return stat_field(path, 22, text) ? number_of(text) : 0;
}

bool only_thread_left() {
    char text[32];
    if (!stat_field("/proc/self/stat", 20, text) || number_of(text) != 2) return false;
    // Two: this one and a main thread that may have ended with pthread_exit (a zombie
    // until the last thread goes).
    char path[64];
    proc_path(path, "/proc/self/task/", static_cast<uint64_t>(getpid()), "/stat");
    return stat_field(path, 3, text) && text[0] == 'Z';
}

const char* SharedFigures::problem(std::initializer_list<const char*> parts) {
    size_t n = 0;
    for (const char* part : parts)
        for (; part != nullptr && *part != '\0' && n < sizeof problem_ - 1; ++part)
            problem_[n++] = *part;
    problem_[n] = '\0';
    return problem_;
}

// The directory of memusage/live_directory.h, made if missing. One that exists is used
// only when it is a real directory of this user's, closed to others: in /dev/shm another
// user may have made it first, or left a link there.
const char* SharedFigures::choose_directory() {
    uid_t uid = geteuid();
    if (!live_format::directory_path(live_format::Place::runtime, uid, getenv("XDG_RUNTIME_DIR"),
                                     directory_) &&
        !live_format::directory_path(live_format::Place::shared_memory, uid, nullptr, directory_))
        return problem({"no directory for them"});
    if (mkdir(directory_, 0700) != 0 && errno != EEXIST) {
        const char* reason = strerrordesc_np(errno);
        return problem({directory_, ": ", reason});
    }
    if (const char* wrong = live_format::own_directory_problem(directory_, uid))
        return problem({directory_, " ", wrong});
    return nullptr;
}

const char* SharedFigures::create(const char* program, uint32_t flags) {
    pid_t pid = getpid();
    pid_ = pid;
    if (directory_[0] == '\0') {
        if (const char* wrong = choose_directory()) {
            directory_[0] = '\0';
            return wrong;
        }
    }
    if (!live_format::file_path(directory_, static_cast<uint64_t>(pid), path_))
        return problem({directory_, ": the name is too long"});
    int fd = open_new(path_);
    if (fd < 0 && errno == EEXIST) {
        // This pid's: an image of this process before an exec, or a dead process's.
        unlink(path_);
        fd = open_new(path_);
    }
    if (fd < 0) return problem({path_, ": ", strerrordesc_np(errno)});
    // Reserved, not only sized: a file system that cannot back every page of the mapping
    // would answer the publisher's first write to a missing one with SIGBUS, killing the
    // program (and a reader's fault on it, the reader). Under a file size limit smaller than
    // the file, reserving fails with EFBIG and raises SIGXFSZ, which is not the program's doing.
    int error = 0;
    {
        QuietWrites quiet;
        error = posix_fallocate(fd, 0, live_format::kFileBytes);
    }
    void* memory = MAP_FAILED;
    if (error == 0) {
        // Past the exported mmap (ours): the collector's own mapping is not the program's
        // call, and must not be counted (with MEMUSAGE_TRACE_MMAP) from inside a fork handler.
        memory = map_by_system_call(nullptr, live_format::kFileBytes, PROT_READ | PROT_WRITE,
                                    MAP_SHARED, fd, 0);
        if (memory == MAP_FAILED) error = errno;
    }
    close(fd);
    if (memory == MAP_FAILED) {
        unlink(path_);
        return problem({path_, ": ", strerrordesc_np(error)});
    }
    auto* header = static_cast<live_format::Header*>(memory);  // zeroed by posix_fallocate
    header->version = live_format::kVersion;
    header->header_bytes = sizeof(live_format::Header);
    header->byte_order = live_format::kByteOrderMark;
    header->word_bytes = sizeof(void*);
    header->flags = flags;
    header->pid = static_cast<uint32_t>(pid);
    header->start_ticks = start_ticks_of(pid);
    header->start_ns = monotonic_ns();
    if (program != nullptr) {
        size_t length = strnlen(program, sizeof header->program - 1);
        memcpy(header->program, program, length);
    }
    // The magic last, in one release store: a reader never takes a half-made header for a
    // whole one.
    uint64_t magic;
    memcpy(&magic, live_format::kMagic, sizeof magic);
    __atomic_store_n(reinterpret_cast<uint64_t*>(header->magic), magic, __ATOMIC_RELEASE);
    __atomic_store_n(&header_, header, __ATOMIC_RELEASE);
    return nullptr;
}

void SharedFigures::publish(const live_format::Figures& figures) {
    live_format::Header* header = __atomic_load_n(&header_, __ATOMIC_ACQUIRE);
    if (header == nullptr) return;
    uint64_t sequence = __atomic_load_n(&header->sequence, __ATOMIC_RELAXED);
    __atomic_store_n(&header->sequence, sequence + 1, __ATOMIC_RELAXED);
    // Word by word, each a release store, so that none is seen before the odd count: the
    // ordering a release fence would give, which ThreadSanitizer does not model.
    static_assert(sizeof figures % sizeof(uint64_t) == 0 &&
                  offsetof(live_format::Header, figures) % alignof(uint64_t) == 0);
    const auto* from = reinterpret_cast<const uint64_t*>(&figures);
    auto* to = reinterpret_cast<uint64_t*>(&header->figures);
    for (size_t i = 0; i < sizeof figures / sizeof(uint64_t); ++i)
        __atomic_store_n(&to[i], from[i], __ATOMIC_RELEASE);
    __atomic_store_n(&header->sequence, sequence + 2, __ATOMIC_RELEASE);
}

bool SharedFigures::is_this_process() const { return pid_ == getpid(); }

void SharedFigures::forget() {
    if (void* header = __atomic_exchange_n(&header_, nullptr, __ATOMIC_ACQ_REL))
        (void)map_by_system_call(header, live_format::kFileBytes, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

uint64_t SharedFigures::sites_wanted_ns() const {
    live_format::Header* header = __atomic_load_n(&header_, __ATOMIC_ACQUIRE);
    return header != nullptr ? __atomic_load_n(&header->sites_wanted_ns, __ATOMIC_RELAXED) : 0;
}

void SharedFigures::remove() {
    // Never the parent's file, from a child that shares or copied the parent's memory.
    if (__atomic_exchange_n(&header_, nullptr, __ATOMIC_ACQ_REL) != nullptr && is_this_process())
        unlink(path_);
}

}  // namespace memusage::publish
