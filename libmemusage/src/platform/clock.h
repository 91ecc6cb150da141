// SPDX-License-Identifier: MIT
// The two readings every event carries: when, and how deep the stack is. The only place,
// with the other platform/ files, that knows which machine it runs on.
#pragma once

#include <time.h>

#include <cstdint>

namespace memusage {

// Wall-clock-rate time for what is stamped in nanoseconds (files' clock readings, waits):
// clock_gettime is async-signal-safe and needs no allocation.
inline uint64_t monotonic_nanoseconds() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

// "The cycle counter" below is the machine's cheapest clock that runs at one rate on every
// core, so that events of different threads can be merged in time order: the time-stamp
// counter on x86 (glibc's collector stamps its data file with it there too), the virtual
// counter on aarch64, the time CSR on riscv64, and CLOCK_MONOTONIC's nanoseconds where
// nothing cheaper is safe to read from user space (32-bit ARM: its counter may be closed
// to user space by the kernel). Its rate is free: the files that need seconds calibrate it
// against monotonic_nanoseconds(), and the data file converts it (data_file_clock.h).
#if defined(__x86_64__) || defined(__i386__)

inline uint64_t cycle_counter() { return __builtin_ia32_rdtsc(); }

// A barrier the processor's reading of the counter cannot pass. lfence is SSE2's; Debian's
// i686 baseline lacks SSE2, where a locked instruction is the strongest fence there is.
inline void counter_fence() {
#if defined(__x86_64__) || defined(__SSE2__)
    asm volatile("lfence" ::: "memory");
#else
    asm volatile("lock; addl $0, (%%esp)" ::: "memory", "cc");
#endif
}

#elif defined(__aarch64__)

inline uint64_t cycle_counter() {
    uint64_t now;
    asm volatile("mrs %0, cntvct_el0" : "=r"(now));
    return now;
}

// isb: the counter is read after every earlier instruction has completed.
inline void counter_fence() { asm volatile("isb" ::: "memory"); }

#elif defined(__riscv) && __riscv_xlen == 64

inline uint64_t cycle_counter() {
    uint64_t now;
    asm volatile("rdtime %0" : "=r"(now));
    return now;
}

inline void counter_fence() { asm volatile("fence" ::: "memory"); }

#else

inline uint64_t cycle_counter() { return monotonic_nanoseconds(); }

// clock_gettime is a call: the compiler keeps memory accesses on their side of it, and
// the C library's clock orders itself.
inline void counter_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif

// A reading that earlier loads cannot fall behind: without the fence the processor
// may read the counter before it has seen what another thread handed over, and stamp
// the consequence earlier than its cause. About 10 ns on the AMD EPYC we measure on:
// a thread recording alone without a data file takes no reading at all.
inline uint64_t ordered_cycle_counter() {
    counter_fence();
    return cycle_counter();
}

// A reading that later loads cannot move ahead of: the merge reads the other threads'
// progress after this instant.
inline uint64_t cycle_counter_fenced() {
    uint64_t now = cycle_counter();
    counter_fence();
    return now;
}

// Read directly: __builtin_frame_address would force a frame pointer on every hook.
inline uintptr_t stack_pointer() {
    uintptr_t sp;
#if defined(__x86_64__)
    asm volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__i386__)
    asm volatile("mov %%esp, %0" : "=r"(sp));
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("mov %0, sp" : "=r"(sp));
#elif defined(__riscv)
    asm volatile("mv %0, sp" : "=r"(sp));
#else
#error "the stack pointer of this architecture: add it here"
#endif
    return sp;
}

// The top of the calling function's frame (always inlined into it): where its caller's
// stack ended. x86's frame pointer sits at the top of the frame; other machines keep their
// frame record at the bottom, under the locals, and the canonical frame address (the
// caller's stack pointer) is the top there.
[[gnu::always_inline]] inline uintptr_t this_frame_top() {
#if defined(__x86_64__) || defined(__i386__)
    return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#else
    return reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa());
#endif
}

}  // namespace memusage
