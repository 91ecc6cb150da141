// SPDX-License-Identifier: MIT
// The live figures' publisher: copies the figures the counting already keeps
// (Recorder::live_snapshot) into the process's shared file (shared_figures.h), made as the
// process starts or at its first counted call. Every profiled process keeps one, with no
// thread of the collector's: a thread's call looks every kCallsPerLook calls
// (record/thread_log.h) whether a copy is due, and makes it then, inside the call (the
// hot path itself only counts down). A thread of the collector's would change the C
// library's own allocator's decisions (perl's in-place reallocs: 2700 alone, 2686 beside
// it), and the summary must be glibc's: only MEMUSAGE_LIVE=1 (memusage --live) starts one,
// which copies five times a second whatever the program does, and the top sites every time.
// Nothing here allocates, and a copy from a call never waits for a lock.
#pragma once

#include <cstdint>

namespace memusage {
class Recorder;
struct ThreadLog;
}  // namespace memusage

namespace memusage::publish {

// The process is profiled: from now on it publishes (MEMUSAGE_LIVE=0 aside: then this is
// never called). `flags`: the header's (live_format.h); the sites' flag is added here.
void prepare(Recorder& recorder, uint32_t flags);

enum class Served { nothing, published, created };
// A call of thread `own`'s (its own log, not a nested one) looked: the file is made if the
// process has none yet, and the figures copied if the last copy is kPublishMilliseconds old
// (1 ms after a call that changed the heap by much, `large_change`). `created`: the file is
// new, and the caller installs what removes it when a signal ends the process.
Served serve_from_call(ThreadLog& own, bool large_change);
// The same at once, whatever the time (the collector's start; `own` may be null).
Served serve_now(ThreadLog* own);
// MEMUSAGE_LIVE=1: the file, and the thread that copies into it five times a second;
// nullptr when both are made, else why not, for the caller's one warning (the program runs
// on). Its caller keeps the thread's creation from being counted.
const char* start(ThreadLog* own);
// The run is ending: no more copies, and the file goes.
void stop();
// A signal is ending the process: its file goes (not the parent's, from a vfork child that
// shares its memory). Async-signal-safe.
void before_signal_death();
// exec: the file goes (the image that follows makes its own when it is profiled).
void before_exec();
// The exec failed: with the thread, the file is made again at once (else at the next look).
void after_failed_exec();
// In a forked child: the parent's thread is not here and its file is the parent's; the
// child makes its own at its first look (no thread: starting one is not safe when fork()
// was called from a signal handler). Async-signal-safe.
void after_fork_in_child();

}  // namespace memusage::publish
