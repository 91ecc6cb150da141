// SPDX-License-Identifier: MIT
// The in-process API (<memusage/memusage.h>) and malloc_count's names for the same
// questions, so that a program written for either asks the collector while it runs.
#include <pthread.h>

#include <cstdio>
#include <cstring>

#include "heap/heap_observer.h"
#include "intercept/collector.h"
#include "memusage/memusage.h"
#include "platform/pages.h"

#define MEMUSAGE_EXPORT extern "C" __attribute__((visibility("default")))

using namespace memusage;
using collector::State;

namespace {

bool tracking() { return collector::current_state() == State::active; }

// What this thread asks about is its own log's events too.
ThreadLog* own_log() { return collector::thread_log; }

// Our own work runs as inside a hook: the recorder's lock is never taken from a counted
// call of this thread. (What it allocates, reading the thread's stack bounds, counts as a
// call made inside a hook does: in the thread's nested log.)
class NotCounting {
  public:
    NotCounting() : saved_(collector::counting_log) { collector::counting_log = nullptr; }
    ~NotCounting() { collector::counting_log = saved_; }
    NotCounting(const NotCounting&) = delete;
    NotCounting& operator=(const NotCounting&) = delete;

  private:
    ThreadLog* saved_;
};

// The process's counters as they stand, in pages of our own: a Stats is 33 KiB, too
// much for the stack of a small thread.
template <typename Use>
bool with_snapshot(Use use) {
    if (!tracking()) return false;
    auto* stats = static_cast<Stats*>(allocate_pages(sizeof(Stats)));
    if (stats == nullptr) return false;
    NotCounting not_counting;
    collector::recorder.snapshot(*stats, own_log());
    use(*stats);
    free_pages(stats, sizeof(Stats));
    return true;
}

uint64_t allocation_calls(const Stats& stats) {
    return stats.calls_of(Call::malloc) + stats.calls_of(Call::calloc) +
           stats.calls_of(Call::realloc) + stats.calls_of(Call::aligned);
}

}  // namespace

MEMUSAGE_EXPORT int memusage_collector_tracking(void) { return tracking() ? 1 : 0; }

MEMUSAGE_EXPORT size_t memusage_collector_current(void) {
    if (!tracking()) return 0;
    NotCounting not_counting;
    return collector::recorder.figures(own_log()).current;
}

MEMUSAGE_EXPORT size_t memusage_collector_peak(void) {
    if (!tracking()) return 0;
    NotCounting not_counting;
    return collector::recorder.figures(own_log()).phase_peak;
}

MEMUSAGE_EXPORT void memusage_collector_reset_peak(void) {
    if (!tracking()) return;
    NotCounting not_counting;
    collector::recorder.reset_phase_peak(own_log());
}

MEMUSAGE_EXPORT uint64_t memusage_collector_total_bytes(void) {
    uint64_t total = 0;
    with_snapshot([&](const Stats& stats) { total = stats.heap_total(); });
    return total;
}

MEMUSAGE_EXPORT uint64_t memusage_collector_total_calls(void) {
    uint64_t calls = 0;
    with_snapshot([&](const Stats& stats) { calls = allocation_calls(stats); });
    return calls;
}

MEMUSAGE_EXPORT size_t memusage_collector_stack_peak(void) {
    if (!tracking()) return 0;
    NotCounting not_counting;
    return collector::recorder.figures(own_log()).stack_peak;
}

MEMUSAGE_EXPORT int memusage_collector_print_summary(int fd) {
    bool printed = with_snapshot([&](const Stats& stats) { collector::print_summary(stats, fd); });
    return printed ? 0 : -1;
}

MEMUSAGE_EXPORT int memusage_collector_set_callback(memusage_heap_callback callback, void* cookie) {
    if (!tracking()) return -1;
    heap_observer.set(callback, cookie);
    return 0;
}

// malloc_count's API (malloc_count.h), with its meanings.

MEMUSAGE_EXPORT size_t malloc_count_current(void) { return memusage_collector_current(); }
MEMUSAGE_EXPORT size_t malloc_count_peak(void) { return memusage_collector_peak(); }
MEMUSAGE_EXPORT void malloc_count_reset_peak(void) { memusage_collector_reset_peak(); }
MEMUSAGE_EXPORT size_t malloc_count_num_allocs(void) { return memusage_collector_total_calls(); }

MEMUSAGE_EXPORT void malloc_count_set_callback(memusage_heap_callback callback, void* cookie) {
    memusage_collector_set_callback(callback, cookie);
}

MEMUSAGE_EXPORT void malloc_count_print_status(void) {
    if (!tracking()) return;
    NotCounting not_counting;
    Recorder::HeapFigures figures = collector::recorder.figures(own_log());
    char line[128];
    int n = snprintf(line, sizeof line, "memusage: current %llu, peak %llu\n",
                     static_cast<unsigned long long>(figures.current),
                     static_cast<unsigned long long>(figures.phase_peak));
    int fd = -1;
    collector::print_summary_line(line, static_cast<size_t>(n), fd);
}

// stack_count's two functions (stack_count.h): fill the stack below the caller with a
// pattern, and later see how far down the pattern was overwritten.
namespace {

constexpr size_t kMostStackCleared = 6 << 20;  // malloc_count's amount
constexpr uint32_t kPattern = 0xdeadc0deu;
__thread size_t cleared_bytes;

// How much of this thread's stack lies below `sp`, less a margin for the guard page
// and for whatever runs on top of the cleared part; at most kMostStackCleared.
size_t stack_room(uintptr_t sp) {
    NotCounting not_counting;  // pthread_getattr_np reads /proc/self/maps with stdio
    pthread_attr_t attributes;
    size_t room = 64 << 10;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void* low;
        size_t size;
        if (pthread_attr_getstack(&attributes, &low, &size) == 0) {
            uintptr_t bottom = reinterpret_cast<uintptr_t>(low);
            constexpr size_t kMargin = 64 << 10;
            room = sp > bottom + kMargin ? sp - bottom - kMargin : 0;
        }
        pthread_attr_destroy(&attributes);
    }
    return room < kMostStackCleared ? room : kMostStackCleared;
}

}  // namespace

MEMUSAGE_EXPORT __attribute__((noinline)) void* stack_count_clear(void) {
    size_t bytes = stack_room(stack_pointer()) & ~size_t{3};
    auto* words = static_cast<volatile uint32_t*>(__builtin_alloca(bytes));
    for (size_t i = 0; i < bytes / sizeof(uint32_t); ++i) words[i] = kPattern;
    cleared_bytes = bytes;
    // The cleared part's top, handed out as a number: it is where the caller's own
    // frame begins, not a pointer to use.
    uintptr_t top = reinterpret_cast<uintptr_t>(words) + bytes;
    asm volatile("" : "+r"(top));
    return reinterpret_cast<void*>(top);
}

MEMUSAGE_EXPORT size_t stack_count_usage(void* base) {
    auto* top = static_cast<const uint32_t*>(base);
    const uint32_t* p = top - cleared_bytes / sizeof(uint32_t);
    while (p < top && *p == kPattern) ++p;
    return static_cast<size_t>(top - p) * sizeof(uint32_t);
}
