// SPDX-License-Identifier: MIT
#include "publish/publisher.h"

#include <errno.h>
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

// wanted: made at the next look (or already made); exec: the process is about to exec (a
// file made now would outlive this image, which keeps the pid and its start time); failed:
// could not be, not tried again; ended: the run is over.
enum class FileState : int { wanted, exec, failed, ended };

SharedFigures shared;
Recorder* source = nullptr;
char program_name[64];
uint32_t header_flags = 0;
std::atomic<FileState> state{FileState::ended};  // until prepare()
std::atomic<bool> stopping{false};
std::atomic<bool> running{false};
// Held by whoever makes the file or copies into it: one at a time, and a thread that finds
// it held does not wait (the one holding it copies).
std::atomic<bool> publishing{false};
std::atomic<uint64_t> last_copy_ns{0};  // CLOCK_MONOTONIC_COARSE
const char* problem_said = nullptr;     // why the file could not be made

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
    // Not on the stack: a copy may be made from a call on a small one.
    static sites::HeldNow held[live_format::kSiteRows];
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

// Whether a reader asked for the top sites lately (Header::sites_wanted_ns): they take a
// pass over the site table, made only for someone who shows them.
bool sites_wanted(uint64_t now_ns) {
    if ((header_flags & live_format::kSites) == 0) return false;
    if (running.load(std::memory_order_acquire)) return true;
    uint64_t asked = shared.sites_wanted_ns();
    return asked != 0 && now_ns - asked < live_format::kSitesWantedMilliseconds * 1'000'000ULL;
}

// One copy, by whoever holds `publishing`: the figures' buffers are this one's alone.
// `own`: the calling thread's log, when a call of the program's makes the copy (which then
// waits for no lock: a thread merging holds it, and the next look copies).
void publish_once(ThreadLog* own) {
    static Stats totals;
    static Figures figures;
    memset(&totals, 0, sizeof totals);
    memset(&figures, 0, sizeof figures);
    uint64_t heap_now = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t now_ns =
        static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
    if (!source->live_snapshot(own, own == nullptr, totals, heap_now, visit_thread, &figures,
                               sites_wanted(now_ns) ? visit_sites : nullptr))
        return;
    figures.published_ns = now_ns;
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

uint64_t coarse_ns() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

// With `publishing` held: the file, made now if this process has none yet (its first look,
// the first after a failed exec, a forked child's first). Kept from being made again once
// it could not be: each try costs system calls.
Served make_file_locked() {
    if (shared.is_open()) return Served::published;
    if (state.load(std::memory_order_acquire) != FileState::wanted) return Served::nothing;
    const char* name = program_invocation_short_name;
    if (program_name[0] == '\0' && name != nullptr)
        strncpy(program_name, name, sizeof program_name - 1);
    if (const char* problem = shared.create(program_name, header_flags)) {
        problem_said = problem;
        state.store(FileState::failed, std::memory_order_release);
        return Served::nothing;
    }
    return Served::created;
}

// Copies the figures if this process has its file (made now if need be) and no one else is
// copying; what was done.
Served serve(ThreadLog* own) {
    if (publishing.exchange(true, std::memory_order_acquire)) return Served::nothing;
    Served served = make_file_locked();
    // A vfork child shares the parent's memory, its file included: never its to write.
    if (served != Served::nothing && shared.is_this_process()) publish_once(own);
    last_copy_ns.store(coarse_ns(), std::memory_order_relaxed);
    publishing.store(false, std::memory_order_release);
    return served;
}

void* publish_until_stopped(void*) {
    pthread_setname_np(pthread_self(), "memusage-live");
    const struct timespec pause = {0, live_format::kPublishMilliseconds * 1'000'000L};
    // The first copy at once: a reader may be waiting for the process to appear.
    while (!stopping.load(std::memory_order_acquire)) {
        serve(nullptr);
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

void prepare(Recorder& recorder, uint32_t flags) {
    source = &recorder;
    header_flags = flags | (sites::accounts() != nullptr ? live_format::kSites : 0);
    state.store(FileState::wanted, std::memory_order_release);
}

Served serve_from_call(ThreadLog& own, bool large_change) {
    if (state.load(std::memory_order_relaxed) != FileState::wanted) return Served::nothing;
    if (shared.is_open()) {
        uint64_t gap =
            large_change ? 1'000'000ULL : live_format::kPublishMilliseconds * 1'000'000ULL;
        if (coarse_ns() - last_copy_ns.load(std::memory_order_relaxed) < gap)
            return Served::nothing;
    }
    return serve(&own);
}

Served serve_now(ThreadLog* own) {
    if (state.load(std::memory_order_relaxed) != FileState::wanted) return Served::nothing;
    return serve(own);
}

const char* start(ThreadLog* own) {
    if (serve_now(own) == Served::nothing)
        return problem_said != nullptr ? problem_said : "its file could not be made";
    if (start_thread()) return nullptr;
    stop();
    return "its thread could not be started";
}

void stop() {
    state.store(FileState::ended, std::memory_order_release);
    stopping.store(true, std::memory_order_release);
    shared.remove();
}

void before_signal_death() {
    if (shared.is_this_process()) stop();
}

// A vfork child shares the parent's memory: its exec must leave the parent's file be.
// After a failed exec, the next look makes the file again.
void before_exec() {
    if (!shared.is_this_process()) return;
    FileState wanted = FileState::wanted;
    state.compare_exchange_strong(wanted, FileState::exec, std::memory_order_acq_rel);
    shared.remove();
}

void after_failed_exec() {
    if (!shared.is_this_process()) return;
    FileState exec = FileState::exec;
    state.compare_exchange_strong(exec, FileState::wanted, std::memory_order_acq_rel);
    if (running.load(std::memory_order_acquire) && !stopping.load(std::memory_order_acquire))
        serve_now(nullptr);
}

// The parent's file is the parent's: the child makes its own at its first look. A copy this
// thread was making when a signal handler forked resumes in the child, writing into memory
// of the child's own (SharedFigures::forget).
void after_fork_in_child() {
    shared.forget();
    running.store(false, std::memory_order_relaxed);
    publishing.store(false, std::memory_order_relaxed);
    last_copy_ns.store(0, std::memory_order_relaxed);
}

}  // namespace memusage::publish
