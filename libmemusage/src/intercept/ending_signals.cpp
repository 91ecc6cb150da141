// SPDX-License-Identifier: MIT
#include "intercept/ending_signals.h"

#include <errno.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

#include "platform/pages.h"

namespace memusage::ending_signals {
namespace {

constexpr int kFaults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

// Bit n: our handler holds signal n.
std::atomic<unsigned long> held{0};

__thread bool thread_exiting = false;

size_t stack_bytes() {
    // Our handler merges and writes with a few kilobytes; the rest is for a program's
    // SA_ONSTACK handlers, which may find the stack and use it.
    constexpr size_t kAtLeast = size_t{64} * 1024;
    long wanted = sysconf(_SC_SIGSTKSZ);
    return wanted > 0 && static_cast<size_t>(wanted) > kAtLeast ? static_cast<size_t>(wanted)
                                                                : kAtLeast;
}

}  // namespace

bool is_fault(int signal_number) {
    for (int fault : kFaults)
        if (signal_number == fault) return true;
    return false;
}

void hold(int signal_number) { held.fetch_or(1ul << signal_number); }

void release_to_program(int signal_number) {
    if (signal_number > 0 && signal_number < 64) held.fetch_and(~(1ul << signal_number));
}

bool holds(int signal_number) {
    return signal_number > 0 && signal_number < 64 &&
           (held.load(std::memory_order_relaxed) & (1ul << signal_number)) != 0;
}

bool blocks_held_fault(const sigset_t* mask) {
    unsigned long ours = held.load(std::memory_order_relaxed);
    for (int fault : kFaults)
        if ((ours & (1ul << fault)) != 0 && sigismember(mask, fault) == 1) return true;
    return false;
}

bool blocks_held_fault(int mask) {
    unsigned long ours = held.load(std::memory_order_relaxed);
    for (int fault : kFaults)  // the old masks: bit n - 1 is signal n
        if ((ours & (1ul << fault)) != 0 && (mask & (1 << (fault - 1))) != 0) return true;
    return false;
}

// Both run inside the program's calls: errno stays as the program left it.
void give_thread_a_stack(void*& stack) {
    if (thread_exiting) return;
    int saved_errno = errno;
    if (stack == nullptr) stack = allocate_pages(stack_bytes());
    stack_t ours = {}, before;
    ours.ss_sp = stack;
    ours.ss_size = stack_bytes();
    // One call in the usual case, where the thread has none; the program's, if any, is
    // put back at once (nothing but a signal in between could have used ours).
    if (stack != nullptr && sigaltstack(&ours, &before) == 0 && (before.ss_flags & SS_DISABLE) == 0)
        sigaltstack(&before, nullptr);
    errno = saved_errno;
}

void take_back_thread_stack(void*& stack) {
    thread_exiting = true;  // a last free after this one gives it no other
    if (stack == nullptr) return;
    int saved_errno = errno;
    stack_t off = {}, before;
    off.ss_flags = SS_DISABLE;
    if (sigaltstack(&off, &before) != 0) {
        if (errno == EPERM) stack = nullptr;  // a handler runs on one: ours is not reused
    } else if (before.ss_sp != stack && (before.ss_flags & SS_DISABLE) == 0) {
        sigaltstack(&before, nullptr);  // the program's own, set after ours: it stays
    }
    errno = saved_errno;
}

}  // namespace memusage::ending_signals
