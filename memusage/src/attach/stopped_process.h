// SPDX-License-Identifier: MIT
// A running process held still with ptrace, without a debugger: every thread seized and
// interrupted, then resumed until none is inside the functions given as busy (the
// allocator's, the dynamic linker's), so that a function can be called in one of them
// (call_function) as if the program had called it. Released, every thread runs on as it was.
// x86_64 only for now.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "memusage/status.h"

namespace memusage::attach {

// An address range no stopped thread may be in: `stack` also when a return address into it
// is on the thread's stack (a thread in a function the range's functions call).
struct BusyRange {
    uintptr_t begin;
    uintptr_t end;
    bool stack;
};

class StoppedProcess {
  public:
    explicit StoppedProcess(pid_t pid) : pid_(pid) {}
    ~StoppedProcess() { release(); }
    StoppedProcess(const StoppedProcess&) = delete;
    StoppedProcess& operator=(const StoppedProcess&) = delete;

    // Every thread stopped outside `busy` (tried for a while, then a message).
    Status stop(const std::vector<BusyRange>& busy);
    // Calls `function(first, second)` in a stopped thread (its registers put back after) and
    // returns what it returned. `text`, when not empty, is copied to the thread's stack and
    // its address passed as `first`.
    Result<uint64_t> call_function(uintptr_t function, const std::string& text, uint64_t first,
                                   uint64_t second);
    // Every thread let go, running as before.
    void release();

  private:
    struct Thread {
        pid_t tid;
        int pending_signal;  // a signal that stopped it first: delivered as it is let go
    };
    Status seize_all();
    Status interrupt_all();
    bool thread_is_busy(pid_t tid, const std::vector<BusyRange>& busy) const;
    void resume_all();

    pid_t pid_;
    std::vector<Thread> threads_;
    bool stopped_ = false;
};

}  // namespace memusage::attach
