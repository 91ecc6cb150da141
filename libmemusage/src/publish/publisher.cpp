// SPDX-License-Identifier: MIT
#include "publish/publisher.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "memusage/live_format.h"
#include "publish/shared_figures.h"
#include "record/recorder.h"
#include "sites/sites.h"

namespace memusage::publish {
namespace {

using live_format::Figures;
using live_format::ThreadFigures;

SharedFigures shared;
Recorder* source = nullptr;
char program_name[64];
uint32_t header_flags = 0;
std::atomic<bool> stopping{false};
std::atomic<bool> running{false};

// The largest `held` each thread reached at a copy, by tid (a small table: threads
// beyond it take over the oldest slot).
struct HeldPeak {
    uint64_t tid;
    int64_t peak;
};
constexpr uint32_t kPeakSlots = 256;
HeldPeak held_peaks[kPeakSlots];
uint32_t next_peak_slot = 0;

int64_t note_held(uint64_t tid, int64_t held) {
    for (HeldPeak& slot : held_peaks) {
        if (slot.tid != tid) continue;
        if (held > slot.peak) slot.peak = held;
        return slot.peak;
    }
    held_peaks[next_peak_slot] = HeldPeak{tid, held};
    next_peak_slot = (next_peak_slot + 1) % kPeakSlots;
    return held;
}

void add_to_others(Figures& figures, const ThreadFigures& row) {
    figures.others.calls += row.calls;
    figures.others.allocated += row.allocated;
    figures.others.freed += row.freed;
    figures.others.held += row.held;
}

// Rows kept largest `held` first; a thread that does not make the first kThreadRows is
// summed in `others`.
void visit_thread(void* context, const Recorder::RunningThread& thread) {
    auto& figures = *static_cast<Figures*>(context);
    ThreadFigures row = {static_cast<uint64_t>(thread.tid),
                         thread.calls,
                         thread.allocated,
                         thread.freed,
                         static_cast<int64_t>(thread.allocated - thread.freed),
                         0};
    row.held_peak = note_held(row.tid, row.held);
    ++figures.threads;
    uint32_t& count = figures.thread_rows;
    if (count == live_format::kThreadRows) {
        if (row.held <= figures.rows[count - 1].held) return add_to_others(figures, row);
        add_to_others(figures, figures.rows[--count]);
    }
    uint32_t at = count++;
    for (; at > 0 && figures.rows[at - 1].held < row.held; --at)
        figures.rows[at] = figures.rows[at - 1];
    figures.rows[at] = row;
}

// Under the recorder's lock: the sites holding the most now, with their innermost frames.
void visit_sites(void* context) {
    auto& figures = *static_cast<Figures*>(context);
    sites::HeldNow held[live_format::kSiteRows];
    figures.site_rows = sites::largest_held_now(held, live_format::kSiteRows);
    for (uint32_t row = 0; row < figures.site_rows; ++row) {
        live_format::HeldSite& site = figures.sites[row];
        site.bytes = held[row].bytes;
        site.blocks = held[row].blocks;
        site.depth =
            held[row].depth < live_format::kSiteFrames ? held[row].depth : live_format::kSiteFrames;
        for (uint32_t frame = 0; frame < site.depth; ++frame)
            site.frames[frame] = held[row].frames[frame];
    }
}

void publish_once() {
    static Stats totals;
    static Figures figures;
    memset(&totals, 0, sizeof totals);
    memset(&figures, 0, sizeof figures);
    uint64_t heap_now = 0;
    if (!source->live_snapshot(totals, heap_now, visit_thread, &figures,
                               (header_flags & live_format::kSites) != 0 ? visit_sites : nullptr))
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    figures.published_ns =
        static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
    static uint64_t publications = 0;
    figures.publications = ++publications;
    figures.heap_now = heap_now;
    figures.heap_peak = totals.heap_peak;
    figures.stack_peak = totals.stack_peak;
    figures.total_peak = totals.total_peak;
    memcpy(figures.calls, totals.calls, sizeof figures.calls);
    memcpy(figures.bytes, totals.bytes, sizeof figures.bytes);
    memcpy(figures.failed, totals.failed, sizeof figures.failed);
    shared.publish(figures);
}

void* publish_until_stopped(void*) {
    pthread_setname_np(pthread_self(), "memusage-live");
    const struct timespec pause = {0, live_format::kPublishMilliseconds * 1'000'000L};
    // The first copy at once: a reader may be waiting for the process to appear.
    while (!stopping.load(std::memory_order_acquire)) {
        publish_once();
        clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, nullptr);
        // A main thread that called pthread_exit leaves the process to its last thread:
        // that must never be this one, or the program would never end.
        if (only_thread_left()) break;
    }
    return nullptr;
}

void set_mask(const sigset_t* mask, sigset_t* previous) {
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, previous, _NSIG / 8);
}

bool start_thread() {
    sigset_t all, previous;
    sigfillset(&all);
    // The thread inherits the mask: no signal of the program's ever lands on it.
    // The kernel's own call: the collector's pthread_sigmask would take this for the
    // program blocking faults.
    set_mask(&all, &previous);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    bool started = pthread_create(&thread, &attributes, publish_until_stopped, nullptr) == 0;
    pthread_attr_destroy(&attributes);
    set_mask(&previous, nullptr);
    running.store(started, std::memory_order_release);
    return started;
}

}  // namespace

const char* start(Recorder& recorder, const char* program, uint32_t flags) {
    source = &recorder;
    header_flags = flags | (sites::accounts() != nullptr ? live_format::kSites : 0);
    if (program != nullptr) strncpy(program_name, program, sizeof program_name - 1);
    if (const char* problem = shared.create(program_name, header_flags)) return problem;
    if (start_thread()) return nullptr;
    shared.remove();
    return "its thread could not be started";
}

void stop() {
    stopping.store(true, std::memory_order_release);
    shared.remove();
}

void before_signal_death() {
    if (shared.is_this_process()) stop();
}

// A vfork child shares the parent's memory: its exec must leave the parent's file be.
void before_exec() {
    if (shared.is_this_process()) shared.remove();
}

void after_failed_exec() {
    if (running.load(std::memory_order_acquire) && !stopping.load(std::memory_order_acquire) &&
        shared.is_this_process())
        shared.create(program_name, header_flags);  // said once, at the start
}

void after_fork_in_child() { shared.forget(); }

}  // namespace memusage::publish
