// SPDX-License-Identifier: MIT
// The live figures' publisher: a thread of the collector's own that, about five times a
// second, copies the figures the counting already keeps (Recorder::live_snapshot) into
// the process's shared file (shared_figures.h). The hot path does nothing for it. The
// thread blocks every signal, so that none of the program's is delivered to it, and
// never allocates.
#pragma once

#include <cstdint>

namespace memusage {
class Recorder;
}

namespace memusage::publish {

// Makes the file and starts the thread; nullptr when both are made, else why not, for
// the caller's one warning (the program runs on unpublished). Its caller keeps the thread's
// creation from being counted. Only when asked (MEMUSAGE_LIVE): a second thread in the process
// changes the C library's own allocator's decisions (perl's in-place reallocs: 2700 alone, 2686
// beside it), and the summary must be glibc's.
const char* start(Recorder& recorder, const char* program, uint32_t flags);
// The run is ending: no more copies, and the file goes.
void stop();
// A signal is ending the process: its file goes (not the parent's, from a vfork child that
// shares its memory). Async-signal-safe.
void before_signal_death();
// exec: the file goes (the image that follows makes its own when it is profiled).
void before_exec();
// The exec failed: the file is made again.
void after_failed_exec();
// In a forked child: the parent's thread is not here and its file is the parent's. The
// child publishes nothing: starting a thread there is not safe when fork() was called from
// a signal handler (and an exec'd image publishes its own). Async-signal-safe.
void after_fork_in_child();

}  // namespace memusage::publish
