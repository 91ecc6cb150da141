// SPDX-License-Identifier: MIT
// The collector's own writes never signal the program. Writing to a pipe whose reader has
// left raises SIGPIPE, and growing a file past the size limit (ulimit -f) raises SIGXFSZ:
// both kill by default, and neither is the program's doing. While this is in scope the two
// are blocked on the calling thread, and one that a write raised meanwhile is taken back
// before they are unblocked; the write itself fails (EPIPE, EFBIG) and is handled as any
// failed write. A signal already pending before stays pending. Async-signal-safe and
// allocation-free: system calls only (the C library's wrappers may not be known yet).
#pragma once

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <initializer_list>

namespace memusage {

class QuietWrites {
  public:
    QuietWrites() {
        uint64_t quiet = bit(SIGPIPE) | bit(SIGXFSZ);
        blocked_ = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &quiet, &saved_, kSetBytes) == 0;
        if (blocked_ && syscall(SYS_rt_sigpending, &pending_before_, kSetBytes) != 0)
            pending_before_ = quiet;  // unknown: nothing is taken back
    }
    ~QuietWrites() {
        if (!blocked_) return;
        int saved_errno = errno;  // the write's
        uint64_t pending = 0;
        if (syscall(SYS_rt_sigpending, &pending, kSetBytes) == 0) {
            for (int signal_number : {SIGPIPE, SIGXFSZ}) {
                uint64_t one = bit(signal_number);
                if ((pending & one) == 0 || (pending_before_ & one) != 0) continue;
                struct timespec now = {0, 0};
                syscall(SYS_rt_sigtimedwait, &one, nullptr, &now, kSetBytes);
            }
        }
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved_, nullptr, kSetBytes);
        errno = saved_errno;
    }
    QuietWrites(const QuietWrites&) = delete;
    QuietWrites& operator=(const QuietWrites&) = delete;

  private:
    // The kernel's signal set: 64 signals, one bit each (signal n is bit n - 1).
    static constexpr long kSetBytes = sizeof(uint64_t);
    static constexpr uint64_t bit(int signal_number) { return uint64_t{1} << (signal_number - 1); }

    uint64_t saved_ = 0;
    uint64_t pending_before_ = 0;
    bool blocked_ = false;
};

}  // namespace memusage
