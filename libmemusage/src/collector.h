// The process-wide collector: its state, its parts, and the per-thread flags the
// hooks consult on every call.
#pragma once

#include <atomic>
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

// This thread's log once it has one, and the same pointer while the thread may
// count: it is null inside a hook (so whatever our own work calls is not counted a
// second time), before the thread's first counted call and after the summary.
extern __thread ThreadLog* thread_log;
extern __thread ThreadLog* counting_log;

State initialize();
// The first call a thread makes: its log, or null when the call must not count.
ThreadLog* begin_first_count();
// In the child of a fork that ran no fork handlers (_Fork): the repair fork's child gets.
void repair_in_forked_child();

inline State current_state() {
    State s = state.load(std::memory_order_acquire);
    return __builtin_expect(s == State::uninitialized, 0) ? initialize() : s;
}

// One intercepted call, from the hook's entry to its return. counting() is null when
// the call must not be counted.
class CountingScope {
  public:
    CountingScope() : log_(counting_log) {
        if (__builtin_expect(log_ != nullptr, 1))
            counting_log = nullptr;
        else
            log_ = begin_first_count();
        if (log_ != nullptr) counting_.emplace(recorder, *log_, stack_pointer());
    }
    ~CountingScope() {
        if (log_ != nullptr) counting_log = log_;
    }
    CountingScope(const CountingScope&) = delete;
    CountingScope& operator=(const CountingScope&) = delete;

    Counting* counting() { return log_ != nullptr ? &*counting_ : nullptr; }

  private:
    ThreadLog* log_;
    std::optional<Counting> counting_;
};

}  // namespace memusage::collector
