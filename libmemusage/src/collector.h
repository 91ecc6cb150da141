// The process-wide collector: its state, its parts, and the per-thread flags the
// hooks consult on every call.
#pragma once

#include <atomic>
#include <new>
#include <optional>

#include "clock.h"
#include "config.h"
#include "counting.h"
#include "data_file.h"
#include "mapping_set.h"
#include "recorder.h"

namespace memusage::collector {

enum class State : int {
    uninitialized,  // nothing resolved yet
    initializing,   // resolving: requests go to the originals, or the bootstrap arena
    passthrough,    // MEMUSAGE_PROG_NAME names another program: we are invisible
    active,         // counting and recording
    finished,       // after the summary: blocks still carry headers, nothing is counted
};

extern std::atomic<State> state;
extern Config config;
extern Recorder recorder;
extern MappingSet mappings;

// Set while this thread runs inside a hook, so whatever our own work calls (libc,
// the SIGPROF handler) is not counted a second time.
extern __thread bool in_hook;
extern __thread ThreadLog* thread_log;

State initialize();
ThreadLog* attach_current_thread();

inline State current_state() {
    State s = state.load(std::memory_order_acquire);
    return __builtin_expect(s == State::uninitialized, 0) ? initialize() : s;
}

// The counting side of one intercepted call. counting() is null when the call must
// not be counted: nested inside another hook, before start, after the summary.
class CountedCall {
  public:
    explicit CountedCall(State s) {
        if (__builtin_expect(in_hook || s != State::active, 0)) return;
        in_hook = true;
        ThreadLog* log = thread_log;
        if (__builtin_expect(log == nullptr, 0)) log = attach_current_thread();
        if (log != nullptr)
            counting_.emplace(recorder, *log, stack_pointer());
        else
            in_hook = false;
    }
    ~CountedCall() {
        if (counting_) in_hook = false;
    }
    CountedCall(const CountedCall&) = delete;
    CountedCall& operator=(const CountedCall&) = delete;

    Counting* counting() { return counting_ ? &*counting_ : nullptr; }

  private:
    std::optional<Counting> counting_;
};

}  // namespace memusage::collector
