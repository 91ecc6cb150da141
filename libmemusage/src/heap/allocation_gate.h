// SPDX-License-Identifier: MIT
// The allocation limit and failure injection: which of the program's allocation calls
// to refuse, decided before the real allocator is asked, so that a program can be
// tested running out of memory. Off, the hooks only test that it is off.
#pragma once

#include <atomic>
#include <cstdint>

#include "memusage/gate_report.h"
#include "memusage/stats.h"

namespace memusage {

class AllocationGate {
  public:
    // At start-up, before any thread but the first exists.
    void configure(const GateConfig& config);
    bool active() const { return active_; }

    // One allocation call that would add `bytes` to the heap (0 for a shrinking
    // realloc). False: the call must fail with ENOMEM. True: the bytes are reserved
    // until cancel() or release() gives them back.
    bool admit(Call call, uint64_t bytes);
    void cancel(uint64_t bytes) { release(bytes); }  // the real allocator failed after all
    void release(uint64_t bytes);                    // bytes freed

    GateReport report() const;

  private:
    bool inject(uint64_t number) const;
    bool reserve(Call call, uint64_t bytes);

    GateConfig config_;
    bool active_ = false;
    std::atomic<uint64_t> heap_{0};
    std::atomic<uint64_t> calls_{0};
    std::atomic<uint64_t> refused_{0};
    std::atomic<uint64_t> first_refused_heap_{0}, first_refused_size_{0};
    std::atomic<unsigned> first_refused_call_{0};
    std::atomic<uint64_t> injected_{0};
    InjectedCall listed_[GateReport::kListed] = {};
};

// The process's gate: the hooks ask it, the summary reports it.
extern AllocationGate allocation_gate;

}  // namespace memusage
