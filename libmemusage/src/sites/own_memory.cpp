// SPDX-License-Identifier: MIT
#include "sites/own_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace memusage::own_memory {
namespace {

// process_vm_readv on ourselves says EFAULT where the memory is not readable. Some places
// refuse the call itself: a seccomp filter (Docker's default profile allows it only with
// CAP_SYS_PTRACE), qemu-user (which does not implement it). There, a write of the bytes
// into a pipe says EFAULT just as well, and the bytes are then read directly. The pipe is
// the collector's own, out of the way of the small numbers programs take as theirs.
std::atomic<bool> call_refused{false};

bool read_by_call(void* to, uintptr_t address, size_t bytes) {
    iovec local = {to, bytes};
    iovec remote = {reinterpret_cast<void*>(address), bytes};
    ssize_t read = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (read == static_cast<ssize_t>(bytes)) return true;
    if (read < 0 && errno != EFAULT) call_refused.store(true, std::memory_order_relaxed);
    return false;
}

constexpr int kPreferredFd = 900;

int move_out_of_the_way(int fd) {
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, kPreferredFd);
    if (moved < 0) return fd;
    close(fd);
    return moved;
}

// The pipe's two descriptors in one word (read end high), 0 for none yet.
std::atomic<uint64_t> pipe_ends{0};

uint64_t packed(int read_end, int write_end) {
    return uint64_t{static_cast<uint32_t>(read_end)} << 32 | static_cast<uint32_t>(write_end);
}

// A program may close our descriptors (closefrom, daemonising) and take the numbers: they
// are still ours only while they are the two ends of one pipe.
bool still_a_pipe(uint64_t ends) {
    struct stat read_end, write_end;
    return ends != 0 && fstat(static_cast<int>(ends >> 32), &read_end) == 0 &&
           fstat(static_cast<int>(ends & 0xffffffff), &write_end) == 0 &&
           S_ISFIFO(read_end.st_mode) && read_end.st_ino == write_end.st_ino &&
           read_end.st_dev == write_end.st_dev;
}

uint64_t our_pipe() {
    uint64_t ends = pipe_ends.load(std::memory_order_acquire);
    if (still_a_pipe(ends)) return ends;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return 0;
    uint64_t made = packed(move_out_of_the_way(fds[0]), move_out_of_the_way(fds[1]));
    if (pipe_ends.compare_exchange_strong(ends, made, std::memory_order_acq_rel)) return made;
    // Another thread made one first: its pipe serves.
    close(static_cast<int>(made >> 32));
    close(static_cast<int>(made & 0xffffffff));
    return ends;
}

bool read_through_pipe(void* to, uintptr_t address, size_t bytes) {
    uint64_t ends = our_pipe();
    if (ends == 0) return false;
    int read_end = static_cast<int>(ends >> 32), write_end = static_cast<int>(ends & 0xffffffff);
    // Bytes other threads left (each takes back as many as it put, perhaps another's).
    char drained[64];
    ssize_t written = write(write_end, reinterpret_cast<const void*>(address), bytes);
    if (written < 0 && errno == EAGAIN) {
        while (::read(read_end, drained, sizeof drained) > 0) {
        }
        written = write(write_end, reinterpret_cast<const void*>(address), bytes);
    }
    if (written > 0) {
        [[maybe_unused]] ssize_t taken = ::read(read_end, drained, static_cast<size_t>(written));
    }
    if (written != static_cast<ssize_t>(bytes)) return false;
    memcpy(to, reinterpret_cast<const void*>(address), bytes);
    return true;
}

}  // namespace

bool read(void* to, uintptr_t address, size_t bytes) {
    if (bytes == 0 || bytes > 64) return false;
    int saved_errno = errno;
    bool read = !call_refused.load(std::memory_order_relaxed) && read_by_call(to, address, bytes);
    if (!read && call_refused.load(std::memory_order_relaxed))
        read = read_through_pipe(to, address, bytes);
    errno = saved_errno;
    return read;
}

}  // namespace memusage::own_memory
