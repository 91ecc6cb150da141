// SPDX-License-Identifier: MIT
// The fatal-signal handler's room to run: the alternate stack a thread gets (never in
// place of the program's own, and reused by the next thread), and the masks that leave
// out the faults the handler holds.
#include "intercept/ending_signals.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

namespace memusage::ending_signals {
namespace {

stack_t current_alternate_stack() {
    stack_t current = {};
    sigaltstack(nullptr, &current);
    return current;
}

// Runs `body` on a new thread that starts and ends without an alternate stack (a
// sanitizer's runtime may have given it one, and unmaps whatever is left at the end).
template <typename Body>
void on_a_bare_thread(Body body) {
    std::thread thread([&] {
        stack_t off = {};
        off.ss_flags = SS_DISABLE;
        sigaltstack(&off, nullptr);
        body();
        sigaltstack(&off, nullptr);
    });
    thread.join();
}

TEST(FatalSignals, AThreadWithoutAnAlternateStackGetsOneSwitchedOffAtItsExit) {
    void* slot = nullptr;
    on_a_bare_thread([&] {
        give_thread_a_stack(slot);
        ASSERT_NE(slot, nullptr);
        stack_t given = current_alternate_stack();
        EXPECT_EQ(given.ss_sp, slot);
        EXPECT_EQ(given.ss_flags & SS_DISABLE, 0);
        EXPECT_GE(given.ss_size, 64u * 1024);
        take_back_thread_stack(slot);
        EXPECT_NE(current_alternate_stack().ss_flags & SS_DISABLE, 0);
        EXPECT_NE(slot, nullptr) << "kept for the next thread";
        give_thread_a_stack(slot);
        EXPECT_NE(current_alternate_stack().ss_flags & SS_DISABLE, 0)
            << "a call after the thread's end gives it no other";
    });
    void* first = slot;
    on_a_bare_thread([&] {
        give_thread_a_stack(slot);
        EXPECT_EQ(slot, first);
        EXPECT_EQ(current_alternate_stack().ss_sp, first) << "the same stack, reused";
        take_back_thread_stack(slot);
    });
}

TEST(FatalSignals, TheProgramsOwnAlternateStackStays) {
    static char own[128 * 1024];
    void* slot = nullptr;
    on_a_bare_thread([&] {
        stack_t theirs = {};
        theirs.ss_sp = own;
        theirs.ss_size = sizeof own;
        ASSERT_EQ(sigaltstack(&theirs, nullptr), 0);
        give_thread_a_stack(slot);
        EXPECT_EQ(current_alternate_stack().ss_sp, own);
        take_back_thread_stack(slot);
        stack_t after = current_alternate_stack();
        EXPECT_EQ(after.ss_sp, own);
        EXPECT_EQ(after.ss_flags & SS_DISABLE, 0);
    });
    on_a_bare_thread([&] {
        give_thread_a_stack(slot);  // ours, which the program replaces with its own
        stack_t theirs = {};
        theirs.ss_sp = own;
        theirs.ss_size = sizeof own;
        ASSERT_EQ(sigaltstack(&theirs, nullptr), 0);
        take_back_thread_stack(slot);
        EXPECT_EQ(current_alternate_stack().ss_sp, own);
        EXPECT_EQ(current_alternate_stack().ss_flags & SS_DISABLE, 0);
    });
}

// A mask that blocks a fault our handler holds takes that handler away (the kernel
// kills without it); other signals, and faults the program handles, do not.
TEST(FatalSignals, KnowsWhichMasksBlockTheFaultsTheHandlerHolds) {
    hold(SIGSEGV);
    hold(SIGABRT);
    EXPECT_TRUE(holds(SIGSEGV));
    EXPECT_FALSE(holds(SIGBUS));
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGBUS);   // not held
    sigaddset(&mask, SIGABRT);  // not a fault: abort() unblocks it itself
    sigaddset(&mask, SIGINT);
    EXPECT_FALSE(blocks_held_fault(&mask));
    sigaddset(&mask, SIGSEGV);
    EXPECT_TRUE(blocks_held_fault(&mask));
    EXPECT_TRUE(blocks_held_fault(1 << (SIGSEGV - 1)));  // old style: bit n - 1 is signal n
    EXPECT_FALSE(blocks_held_fault(1 << (SIGBUS - 1)));

    release_to_program(SIGSEGV);
    EXPECT_FALSE(holds(SIGSEGV)) << "the program's own handler has it now";
    EXPECT_FALSE(blocks_held_fault(&mask));
    release_to_program(SIGABRT);
}

TEST(FatalSignals, FaultsAreTheSignalsAFaultingInstructionRaises) {
    for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) EXPECT_TRUE(is_fault(fault));
    for (int other : {SIGABRT, SIGINT, SIGPROF}) EXPECT_FALSE(is_fault(other));
}

}  // namespace
}  // namespace memusage::ending_signals
