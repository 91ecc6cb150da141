#include "live/shared_figures.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace memusage::live {
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

void figures_path(char (&path)[96], uid_t uid, pid_t pid) {
    size_t n = 0;
    for (const char* part : {live_format::kDirectory, "/", live_format::kNamePrefix}) {
        size_t length = strlen(part);
        memcpy(path + n, part, length);
        n += length;
    }
    n += append_number(path + n, uid);
    path[n++] = '-';
    n += append_number(path + n, static_cast<uint64_t>(pid));
    path[n] = '\0';
}

uint64_t start_ticks_of(pid_t pid) {
    char path[64] = "/proc/";
    size_t n = strlen(path);
    n += append_number(path + n, static_cast<uint64_t>(pid));
    memcpy(path + n, "/stat", sizeof "/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[1024];
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return 0;
    text[length] = '\0';
    // The name in parentheses may hold anything: the fields count from its last ')'.
    const char* p = strrchr(text, ')');
    if (p == nullptr) return 0;
    // Field 3 (the state) follows ") "; the start time is field 22.
    int field = 2;
    for (; *p != '\0' && field < 22; ++p)
        if (*p == ' ') ++field;
    uint64_t ticks = 0;
    for (; *p >= '0' && *p <= '9'; ++p) ticks = ticks * 10 + static_cast<uint64_t>(*p - '0');
    return ticks;
}

bool SharedFigures::create(const char* program, uint32_t flags) {
    pid_t pid = getpid();
    pid_ = pid;
    figures_path(path_, getuid(), pid);
    int fd = open_new(path_);
    if (fd < 0 && errno == EEXIST) {
        // This pid's: an image of this process before an exec, or a dead process's.
        unlink(path_);
        fd = open_new(path_);
    }
    if (fd < 0) return false;
    void* memory = MAP_FAILED;
    if (ftruncate(fd, live_format::kFileBytes) == 0)
        memory = mmap(nullptr, live_format::kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (memory == MAP_FAILED) {
        unlink(path_);
        return false;
    }
    auto* header = static_cast<live_format::Header*>(memory);  // zeroed by ftruncate
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
    // The magic last: a reader never takes a half-made header for a whole one.
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(header->magic, live_format::kMagic, sizeof header->magic);
    __atomic_store_n(&header_, header, __ATOMIC_RELEASE);
    return true;
}

void SharedFigures::publish(const live_format::Figures& figures) {
    live_format::Header* header = __atomic_load_n(&header_, __ATOMIC_ACQUIRE);
    if (header == nullptr) return;
    uint64_t sequence = __atomic_load_n(&header->sequence, __ATOMIC_RELAXED);
    __atomic_store_n(&header->sequence, sequence + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(&header->figures, &figures, sizeof figures);
    __atomic_store_n(&header->sequence, sequence + 2, __ATOMIC_RELEASE);
}

bool SharedFigures::is_this_process() const { return pid_ == getpid(); }

void SharedFigures::forget() {
    if (void* header = __atomic_exchange_n(&header_, nullptr, __ATOMIC_ACQ_REL))
        munmap(header, live_format::kFileBytes);
}

void SharedFigures::remove() {
    // Never the parent's file, from a child that shares or copied the parent's memory.
    if (__atomic_exchange_n(&header_, nullptr, __ATOMIC_ACQ_REL) != nullptr && is_this_process())
        unlink(path_);
}

}  // namespace memusage::live
