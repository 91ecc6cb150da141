// What keeps the fatal-signal handler able to run when the program crashes: an
// alternate stack on every counting thread (a stack overflow leaves no room on the
// thread's own), and masks that never block the faults it handles (the kernel kills a
// process whose fault signal is blocked without running any handler).
#pragma once

#include <signal.h>

namespace memusage::fatal_signals {

// SIGSEGV, SIGBUS, SIGFPE, SIGILL: what a faulting instruction raises, and what the
// kernel forces upon a process that blocks it.
bool is_fault(int signal_number);

// Our handler now holds the signal (the program left it at its default action).
void hold(int signal_number);
// The program sets the signal's disposition itself: it is its own from now on.
void release_to_program(int signal_number);

// The mask without the fault signals our handler holds: blocking them could only turn
// a crash into one that loses the data file.
void unblock_held_faults(sigset_t* mask);
// The same for the old-style int masks (sigblock, sigsetmask).
int unblock_held_faults(int mask);

// The calling thread starts counting: `stack` becomes its alternate signal stack,
// unless the program gave it one already. A null `stack` is allocated first; it stays
// with its owner (the thread's log) for the next thread, and is never freed.
void give_thread_a_stack(void*& stack);
// The thread is exiting: its alternate stack is switched off if it is ours. If a
// handler is running on it, `stack` is let go (set to null) instead.
void take_back_thread_stack(void*& stack);

}  // namespace memusage::fatal_signals
