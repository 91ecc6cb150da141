#include "sampler.h"

#include <signal.h>
#include <sys/time.h>
#include <ucontext.h>

#include <atomic>
#include <cerrno>

#include "collector.h"
#include "originals.h"

namespace memusage::sampler {
namespace {

constexpr suseconds_t kTickMicroseconds = 1;  // the kernel rounds it to its own tick
std::atomic<bool> running{false};

void on_tick(int, siginfo_t*, void* context) {
    // Inside a hook the thread's log is half-written; the tick is simply skipped.
    ThreadLog* log = collector::counting_log;
    if (log == nullptr ||
        collector::state.load(std::memory_order_relaxed) != collector::State::active)
        return;
    int saved_errno = errno;
    auto* interrupted = static_cast<ucontext_t*>(context);
    uintptr_t sp = interrupted != nullptr
                       ? static_cast<uintptr_t>(interrupted->uc_mcontext.gregs[REG_RSP])
                       : stack_pointer();
    collector::counting_log = nullptr;
    collector::recorder.record_from_signal(*log, cycle_counter(), log->stack_use(sp));
    collector::counting_log = log;
    errno = saved_errno;
}

void arm(suseconds_t microseconds) {
    struct itimerval timer = {};
    timer.it_interval.tv_usec = microseconds;
    timer.it_value.tv_usec = microseconds;
    setitimer(ITIMER_PROF, &timer, nullptr);
}

}  // namespace

void start() {
    struct sigaction action = {};
    action.sa_sigaction = on_tick;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (original::sigaction(SIGPROF, &action, nullptr) != 0) return;
    running.store(true);
    arm(kTickMicroseconds);
}

void stop() {
    if (running.exchange(false)) arm(0);
}

void yield_to_program(int signal_number) {
    if (signal_number != SIGPROF || !running.exchange(false)) return;
    // Disarm only our own timer: the program may have armed one for itself already.
    struct itimerval current;
    if (getitimer(ITIMER_PROF, &current) == 0 && current.it_interval.tv_sec == 0 &&
        current.it_interval.tv_usec == kTickMicroseconds)
        arm(0);
}

}  // namespace memusage::sampler
