// SPDX-License-Identifier: MIT
#include "intercept/sampler.h"

#include <signal.h>
#include <time.h>
#include <ucontext.h>

#include <atomic>
#include <cerrno>

#include "intercept/collector.h"
#include "platform/originals.h"
#include "platform/signal_context.h"
#include "sites/stack_peaks.h"

namespace memusage::sampler {
namespace {

constexpr long kTickNanoseconds = 1000;  // the kernel rounds it to its own tick

std::atomic<bool> running{false};
std::atomic<bool> yielded{false};
std::atomic<bool> installed{false};  // our handler is SIGPROF's (it stays after stop())
timer_t timer;

void on_tick(int, siginfo_t*, void* context) {
    // Inside a hook the thread's log is half-written; the tick is simply skipped. So it is
    // when the thread counts nothing (the run is ending) or counts in its nested log.
    ThreadLog* log = collector::counting_log;
    if (log == nullptr || log->stop_requested.load(std::memory_order_relaxed) ||
        collector::state.load(std::memory_order_relaxed) != collector::State::active)
        return;
    int saved_errno = errno;
    uintptr_t sp = interrupted_stack_pointer(context);
    collector::counting_log = nullptr;
    uint64_t stack = log->stack_use(sp);
    log->note_stack(stack);
    if (__builtin_expect(stack > log->stack_capture_above, 0))
        log->stack_capture_above =
            stack_peaks::capture(stack, sp, !log->own_stack.holds(sp), context);
    collector::recorder.record_from_signal(*log, cycle_counter(), stack);
    collector::counting_log = log;
    errno = saved_errno;
}

bool start_timer() {
    struct sigevent event = {};
    event.sigev_notify = SIGEV_SIGNAL;
    event.sigev_signo = SIGPROF;
    if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &event, &timer) != 0) return false;
    struct itimerspec interval = {};
    interval.it_interval.tv_nsec = kTickNanoseconds;
    interval.it_value.tv_nsec = kTickNanoseconds;
    if (timer_settime(timer, 0, &interval, nullptr) != 0) {
        timer_delete(timer);
        return false;
    }
    return true;
}

}  // namespace

void start() {
    if (yielded.load()) return;
    struct sigaction action = {};
    action.sa_sigaction = on_tick;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (original::sigaction(SIGPROF, &action, nullptr) != 0) return;
    installed.store(true);
    if (start_timer()) running.store(true);
}

void stop() {
    if (running.exchange(false)) timer_delete(timer);
}

bool pause_for_exec() {
    bool was_sampling = running.load();
    stop();
    return was_sampling;
}

void resume_after_failed_exec(bool was_sampling) {
    if (was_sampling && !yielded.load() && start_timer()) running.store(true);
}

void yield_to_program(int signal_number) {
    if (signal_number != SIGPROF) return;
    yielded.store(true);
    stop();
}

bool holds(int signal_number) {
    return signal_number == SIGPROF && installed.load() && !yielded.load();
}

}  // namespace memusage::sampler
