// SPDX-License-Identifier: MIT
#include "attach/stopped_process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace memusage::attach {
namespace {

// Tries to find every thread outside the busy ranges, each a short run apart.
constexpr int kStopTries = 200;
constexpr useconds_t kRunBetweenTries = 2000;
// Words of a thread's stack looked at for return addresses into a busy range.
constexpr size_t kStackWords = 64;

std::vector<pid_t> thread_ids(pid_t pid) {
    std::vector<pid_t> ids;
    const std::string path = "/proc/" + std::to_string(pid) + "/task";
    DIR* directory = opendir(path.c_str());
    if (directory == nullptr) return ids;
    while (dirent* entry = readdir(directory))
        if (entry->d_name[0] != '.') ids.push_back(static_cast<pid_t>(atoi(entry->d_name)));
    closedir(directory);
    return ids;
}

// Waits for `tid`'s next stop; its signal when that is a signal's delivery (0 for ptrace's
// own stop); -1 when the thread is gone.
int wait_for_stop(pid_t tid) {
    for (;;) {
        int status = 0;
        if (waitpid(tid, &status, __WALL) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) return -1;
        if (!WIFSTOPPED(status)) continue;
        if ((status >> 16) == PTRACE_EVENT_STOP) return 0;
        return WSTOPSIG(status);
    }
}

#if defined(__x86_64__)
bool registers_of(pid_t tid, user_regs_struct& registers) {
    return ptrace(PTRACE_GETREGS, tid, nullptr, &registers) == 0;
}

bool read_memory(pid_t pid, uintptr_t address, void* out, size_t bytes) {
    iovec local{out, bytes};
    iovec remote{reinterpret_cast<void*>(address), bytes};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(bytes);
}

bool write_memory(pid_t pid, uintptr_t address, const void* data, size_t bytes) {
    const std::string path = "/proc/" + std::to_string(pid) + "/mem";
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t written = pwrite(fd, data, bytes, static_cast<off_t>(address));
    close(fd);
    return written == static_cast<ssize_t>(bytes);
}
#endif

}  // namespace

Status StoppedProcess::seize_all() {
    // Threads started meanwhile are seized on the next pass.
    for (bool found_new = true; found_new;) {
        found_new = false;
        for (pid_t tid : thread_ids(pid_)) {
            if (std::any_of(threads_.begin(), threads_.end(),
                            [tid](const Thread& thread) { return thread.tid == tid; }))
                continue;
            if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
                if (errno == ESRCH) continue;  // it ended meanwhile
                const int error = errno;
                release();
                if (error == EPERM)
                    return Failure{"memusage: not permitted to trace process " +
                                   std::to_string(pid_)};
                return Failure{"memusage: cannot trace process " + std::to_string(pid_) + ": " +
                               strerror(error)};
            }
            threads_.push_back({tid, 0});
            found_new = true;
        }
    }
    if (threads_.empty()) return Failure{"memusage: no process " + std::to_string(pid_)};
    return {};
}

Status StoppedProcess::interrupt_all() {
    for (Thread& thread : threads_) ptrace(PTRACE_INTERRUPT, thread.tid, nullptr, nullptr);
    std::vector<Thread> alive;
    for (Thread& thread : threads_) {
        const int signal_number = wait_for_stop(thread.tid);
        if (signal_number < 0) continue;
        // A signal that came first: the thread is stopped all the same; it gets it back later.
        if (signal_number != 0 && signal_number != SIGTRAP) {
            thread.pending_signal = signal_number;
            ptrace(PTRACE_INTERRUPT, thread.tid, nullptr, nullptr);
            ptrace(PTRACE_CONT, thread.tid, nullptr, nullptr);
            if (wait_for_stop(thread.tid) < 0) continue;
        }
        alive.push_back(thread);
    }
    threads_ = alive;
    stopped_ = true;
    if (threads_.empty()) return Failure{"memusage: process " + std::to_string(pid_) + " ended"};
    return {};
}

void StoppedProcess::resume_all() {
    for (const Thread& thread : threads_) ptrace(PTRACE_CONT, thread.tid, nullptr, nullptr);
    stopped_ = false;
}

bool StoppedProcess::thread_is_busy(pid_t tid, const std::vector<BusyRange>& busy) const {
#if defined(__x86_64__)
    user_regs_struct registers;
    if (!registers_of(tid, registers)) return false;
    for (const BusyRange& range : busy)
        if (registers.rip >= range.begin && registers.rip < range.end) return true;
    std::vector<uint64_t> words(kStackWords);
    size_t got = kStackWords;
    while (got > 0 && !read_memory(pid_, registers.rsp, words.data(), got * sizeof(uint64_t)))
        got /= 2;
    for (size_t i = 0; i < got; ++i)
        for (const BusyRange& range : busy)
            // A return address lies inside a function, never at its start.
            if (range.stack && words[i] > range.begin && words[i] < range.end) return true;
    return false;
#else
    (void)tid;
    (void)busy;
    return true;
#endif
}

Status StoppedProcess::stop(const std::vector<BusyRange>& busy) {
#if !defined(__x86_64__)
    (void)busy;
    return Failure{"memusage: --attach is not available on this machine yet (x86_64 only)"};
#else
    if (Status seized = seize_all(); !seized.ok()) return seized;
    for (int attempt = 0; attempt < kStopTries; ++attempt) {
        if (Status interrupted = interrupt_all(); !interrupted.ok()) return interrupted;
        // Threads started since the last pass.
        if (thread_ids(pid_).size() != threads_.size()) {
            resume_all();
            if (Status seized = seize_all(); !seized.ok()) return seized;
            continue;
        }
        if (std::none_of(threads_.begin(), threads_.end(),
                         [&](const Thread& thread) { return thread_is_busy(thread.tid, busy); }))
            return {};
        resume_all();
        usleep(kRunBetweenTries);
    }
    release();
    return Failure{"memusage: process " + std::to_string(pid_) +
                   " was inside its allocator every time it was stopped; try again"};
#endif
}

Result<uint64_t> StoppedProcess::call_function(uintptr_t function, const std::string& text,
                                               uint64_t first, uint64_t second) {
#if !defined(__x86_64__)
    (void)function, (void)text, (void)first, (void)second;
    return Failure{"memusage: --attach is not available on this machine yet"};
#else
    // The main thread if it is there: any stopped thread would do.
    const pid_t tid = threads_.front().tid;
    user_regs_struct saved;
    if (!registers_of(tid, saved)) return Failure{"memusage: cannot read the thread's registers"};
    user_regs_struct call = saved;
    constexpr uint64_t kRedZone = 128;
    uint64_t top = (saved.rsp - kRedZone - text.size() - 1) & ~uint64_t{15};
    if (!text.empty()) {
        if (!write_memory(pid_, top, text.c_str(), text.size() + 1))
            return Failure{"memusage: cannot write into process " + std::to_string(pid_)};
        first = top;
    }
    // The call returns to address 0: the fault it ends in stops the thread for us.
    call.rsp = top - 8;
    const uint64_t return_address = 0;
    if (!write_memory(pid_, call.rsp, &return_address, sizeof return_address))
        return Failure{"memusage: cannot write into process " + std::to_string(pid_)};
    call.rip = function;
    call.rdi = first;
    call.rsi = second;
    call.rax = 0;
    call.orig_rax = static_cast<uint64_t>(-1);  // no system call to restart
    if (ptrace(PTRACE_SETREGS, tid, nullptr, &call) != 0)
        return Failure{"memusage: cannot set the thread's registers"};
    uint64_t result = 0;
    // A signal that comes meanwhile is delivered: its handler runs on top of the call.
    intptr_t deliver = 0;
    for (;;) {
        if (ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(deliver)) != 0)
            return Failure{"memusage: the process ended during the call"};
        const int signal_number = wait_for_stop(tid);
        user_regs_struct now;
        if (signal_number < 0 || !registers_of(tid, now))
            return Failure{"memusage: the process ended during the call"};
        if (signal_number == SIGSEGV && now.rip == 0) {
            result = now.rax;
            break;
        }
        if (signal_number == SIGSEGV || signal_number == SIGBUS || signal_number == SIGILL) {
            ptrace(PTRACE_SETREGS, tid, nullptr, &saved);
            char where[64];
            snprintf(where, sizeof where, " (signal %d at %#llx)", signal_number,
                     static_cast<unsigned long long>(now.rip));
            return Failure{"memusage: the call in process " + std::to_string(pid_) + " faulted" +
                           where};
        }
        deliver = signal_number == SIGTRAP ? 0 : signal_number;
    }
    if (ptrace(PTRACE_SETREGS, tid, nullptr, &saved) != 0)
        return Failure{"memusage: cannot put the thread's registers back"};
    return result;
#endif
}

void StoppedProcess::release() {
    // Only a stopped thread can be let go.
    if (!stopped_)
        for (const Thread& thread : threads_)
            if (ptrace(PTRACE_INTERRUPT, thread.tid, nullptr, nullptr) == 0)
                wait_for_stop(thread.tid);
    for (const Thread& thread : threads_)
        ptrace(PTRACE_DETACH, thread.tid, nullptr,
               reinterpret_cast<void*>(static_cast<intptr_t>(thread.pending_signal)));
    threads_.clear();
    stopped_ = false;
}

}  // namespace memusage::attach
