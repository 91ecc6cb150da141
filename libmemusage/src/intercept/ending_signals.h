// SPDX-License-Identifier: MIT
// What keeps the fatal-signal handler able to run when the program crashes: an
// alternate stack on every counting thread (a stack overflow leaves no room on the
// thread's own). The program's masks are its own: a fault it blocks kills the process
// without any handler (the kernel's rule), so the collector keeps its data file complete
// by other means then (collector.h, program_blocks_faults).
#pragma once

#include <signal.h>

namespace memusage::ending_signals {

// SIGSEGV, SIGBUS, SIGFPE, SIGILL: what a faulting instruction raises, and what the
// kernel forces upon a process that blocks it.
bool is_fault(int signal_number);

// Our handler now holds the signal (the program left it at its default action).
void hold(int signal_number);
// The program sets the signal's disposition itself: it is its own from now on.
void release_to_program(int signal_number);
// Our handler holds the signal: the program, which set none, must read it back as the
// default.
bool holds(int signal_number);

// Whether `mask` blocks a fault signal our handler holds: a fault would then kill the
// process without running it.
bool blocks_held_fault(const sigset_t* mask);
// The same for the old-style int masks (sigblock, sigsetmask).
bool blocks_held_fault(int mask);

// The calling thread starts counting: `stack` becomes its alternate signal stack,
// unless the program gave it one already. A null `stack` is allocated first; it stays
// with its owner (the thread's log) for the next thread, and is never freed.
void give_thread_a_stack(void*& stack);
// The thread is exiting: its alternate stack is switched off if it is ours. If a
// handler is running on it, `stack` is let go (set to null) instead.
void take_back_thread_stack(void*& stack);

}  // namespace memusage::ending_signals
