// SPDX-License-Identifier: MIT
// The process-wide collector: its state, its parts, and the per-thread flags the
// hooks consult on every call.
#pragma once

#include <atomic>
#include <optional>

#include "heap/counting.h"
#include "heap/counting_extras.h"
#include "heap/mapping_set.h"
#include "memusage/summary.h"
#include "platform/bench_pieces.h"
#include "platform/build_variant.h"
#include "platform/clock.h"
#include "platform/config.h"
#include "platform/stacks.h"
#include "record/data_file.h"
#include "record/recorder.h"

namespace memusage::collector {

enum class State : int {
    uninitialized,  // nothing resolved yet
    initializing,   // resolving: requests go to the originals, or the bootstrap arena
    passthrough,    // MEMUSAGE_PROG_NAME names another program: we are invisible
    active,         // counting and recording
    finished,       // after the summary: nothing is counted, new blocks get no header
};

extern std::atomic<State> state;
extern Config config;
extern Recorder recorder;
extern MappingSet mappings;

// This thread's log once it has one, and the same pointer while the thread may
// count: it is null inside a hook (so a call made inside one is not taken for one of
// the thread's own), before the thread's first counted call and after the summary, and
// the thread's nested log during a signal handler's call counted there. The end of the
// run reads it from other threads, to wait for calls in progress.
extern __thread ThreadLog* thread_log;
extern __thread ThreadLog* counting_log;

State initialize();
// The same with the settings `lookup` gives (null: the environment), the summary and our
// messages written to `report_fd` (-1: the standard error the program started with). An
// attached collector starts so.
State initialize_from(const char* (*lookup)(const char*), int report_fd);
// The end of the run, as at exit: the files written, the summary printed; false when the
// run was not active. An attached collector's detach ends it so.
bool finish();
// The live figures as an attached collector starts.
void start_publishing();

// The summary of `stats` on `fd` (-1: the standard error the program started with),
// coloured as the run's settings say; also what the in-process API prints.
void print_summary(const Stats& stats, int fd);
SummaryStyle summary_style(int fd);
void write_to_fd(void* fd, const char* text, size_t length);
// One line of ours where the summary goes (`fd` -1: the standard error the program
// started with).
void print_summary_line(const char* text, size_t length, int fd);
struct UncommonCount {
    ThreadLog* log;      // where the call counts; null: nowhere
    ThreadLog* restore;  // counting_log once the call is over
};
// The calls the fast path does not take: a thread's first, a call made inside another,
// and calls that must not count. (Returned by value: nothing of the scope escapes, so
// that the fast path can keep it in registers.)
UncommonCount begin_uncommon_count();
// A thread the program created enters its start routine: it is counted from here, its
// stack measured from `stack_start` within `own_stack`.
void thread_begins(uintptr_t stack_start, StackRange own_stack);
// The collector is starting a thread of its own (the live publisher's): not the program's.
bool starting_own_thread();
// In the child of a fork that ran no fork handlers (_Fork): the repair fork's child gets.
void repair_in_forked_child();
// The program blocks a fault signal our handler holds (with a mask, or in a handler's
// mask). Its masks are its own, and a fault it blocks kills the process without any
// handler, by the kernel's rule: so the data file is brought up to date now, header and
// all, and from now on its header is rewritten with every write. A fault then leaves a
// complete file of everything up to the last write. errno is left as it was.
void program_blocks_faults();

inline State current_state() {
    State s = state.load(std::memory_order_acquire);
    return __builtin_expect(s == State::uninitialized, 0) ? initialize() : s;
}

// Which short way a counted call takes, if any: the short way (ShortCounting) while
// nothing beyond counting is on, the sampled short way (SampledCounting) while only sampled
// allocation sites are; none (the general way, CountingScope, which sorts out the rest).
enum class ShortWay : uint8_t { none, counting, sampled };
struct ShortCall {
    ThreadLog* log;  // the thread's log, claimed for the call as CountingScope claims it
    ShortWay way;    // none: `log` is null
};
__attribute__((always_inline)) inline ThreadLog* claim_for_short_call(ThreadLog* log);
// Inlined into the hooks, and kept to the log alone, which is all the call has to keep
// across the real allocator's. The flag is read once for both ways, and tested once more
// for the second.
__attribute__((always_inline)) inline ShortCall begin_short_call_or_sampled() {
    ThreadLog* log = counting_log;
    counting_extras::More more = counting_extras::more.load(std::memory_order_relaxed);
    if (__builtin_expect(log == nullptr, 0)) return {nullptr, ShortWay::none};
    if (__builtin_expect(more == counting_extras::More::nothing, 1))
        return {claim_for_short_call(log), ShortWay::counting};
    if (more == counting_extras::More::sampled_sites)
        return {claim_for_short_call(log), ShortWay::sampled};
    return {nullptr, ShortWay::none};
}
__attribute__((always_inline)) inline ThreadLog* claim_for_short_call(ThreadLog* log) {
    if constexpr (bench_off::thread_slot) return log;
    __atomic_store_n(&counting_log, nullptr, __ATOMIC_RELAXED);
    // As in CountingScope: the end of the run either is seen here or sees the call.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (__builtin_expect(log->stop_requested.load(std::memory_order_relaxed), 0)) {
        __atomic_store_n(&counting_log, log, __ATOMIC_RELAXED);
        return nullptr;
    }
    return log;
}
// The live figures: a thread's call whose countdown ran out (ThreadLog::publish_countdown)
// looks whether a copy is due, and makes it (publish::serve_from_call). Out of line; still
// inside the call, so that a signal handler's call meanwhile is counted apart (a nested log
// never looks) and finds the thread in no hook's state but this one's.
void look_at_live_figures(ThreadLog& log);
__attribute__((always_inline)) inline void count_down_to_live_figures(ThreadLog& log) {
    if (__builtin_expect(--log.publish_countdown < 0, 0)) look_at_live_figures(log);
}

// Release: whoever sees the thread between calls sees this call's counts.
__attribute__((always_inline)) inline void end_short_call(ThreadLog* log) {
    count_down_to_live_figures(*log);
    __atomic_store_n(&counting_log, log, __ATOMIC_RELEASE);
}

// One intercepted call, from the hook's entry to its return. counting() is null when
// the call must not be counted.
class CountingScope {
  public:
    CountingScope() : log_(counting_log), restore_(log_) {
        if (__builtin_expect(log_ != nullptr, 1)) {
            if constexpr (bench_off::thread_slot) {
                counting_.emplace(recorder, *log_, stack_pointer());
                return;
            }
            __atomic_store_n(&counting_log, nullptr, __ATOMIC_RELAXED);
            // The end of the run sets the stop flag, then runs a process-wide barrier and
            // reads counting_log: the thread either sees the flag here, or is seen inside
            // this call and waited for. A nested log always has the flag set: a handler's
            // call inside a handler's call is not counted.
            std::atomic_signal_fence(std::memory_order_seq_cst);
            if (__builtin_expect(log_->stop_requested.load(std::memory_order_relaxed), 0)) {
                __atomic_store_n(&counting_log, log_, __ATOMIC_RELAXED);
                log_ = nullptr;
            }
        } else {
            UncommonCount uncommon = begin_uncommon_count();
            log_ = uncommon.log;
            restore_ = uncommon.restore;
        }
        if (log_ != nullptr) counting_.emplace(recorder, *log_, stack_pointer());
    }
    // Release: whoever sees the thread between calls sees this call's counts.
    ~CountingScope() {
        // The thread's own log (a nested one is never restored).
        if (log_ != nullptr && log_ == restore_) count_down_to_live_figures(*log_);
        __atomic_store_n(&counting_log, restore_, __ATOMIC_RELEASE);
    }
    CountingScope(const CountingScope&) = delete;
    CountingScope& operator=(const CountingScope&) = delete;

    Counting* counting() { return log_ != nullptr ? &*counting_ : nullptr; }

  private:
    ThreadLog* log_;
    ThreadLog* restore_;
    std::optional<Counting> counting_;
};

}  // namespace memusage::collector
