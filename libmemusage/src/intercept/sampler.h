// SPDX-License-Identifier: MIT
// SIGPROF sampling: a record per profiling tick, so the graph shows time passing,
// and the stack measured where no allocation happens.
#pragma once

namespace memusage::sampler {

// Installs the handler and starts a timer on the process's CPU time at the smallest
// interval (the kernel rounds it to its tick), as glibc's ITIMER_PROF does. It is a
// POSIX timer rather than ITIMER_PROF because those are not inherited by forked
// children and are deleted by execve: ITIMER_PROF survives execve, and its SIGPROF
// kills a program that does not handle it.
void start();
void stop();

// execve: no tick may arrive while the new image has SIGPROF's default action (death).
// Returns whether sampling was on, for resume_after_failed_exec.
bool pause_for_exec();
void resume_after_failed_exec(bool was_sampling);

// The program is installing its own SIGPROF disposition: from now on SIGPROF is its
// own, and ours stops for good.
void yield_to_program(int signal_number);
// Our handler holds the signal (SIGPROF, the program set none): the program must read
// it back as the default.
bool holds(int signal_number);

}  // namespace memusage::sampler
