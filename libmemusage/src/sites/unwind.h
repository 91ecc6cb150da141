// SPDX-License-Identifier: MIT
// The calling stack as return addresses, by libunwind's unw_backtrace. libunwind is loaded
// privately (dlopen with RTLD_LOCAL), never linked: linked, its exported _Unwind_* and
// backtrace would take the place of libgcc's for the whole profiled program and break its
// exceptions.
#pragma once

#include <cstdint>

#include "memusage/sites_format.h"
#include "platform/unwinder_abi.h"
#include "sites/row_walk.h"

namespace memusage::unwind {

// Loads libunwind.so.8, makes it read memory without descriptors of its own (unwind.cpp)
// and finds the collector's and libunwind's code. False if libunwind is missing (or not
// one whose reads can be made ours): every stack is then empty. Call once, before any
// thread captures.
// `verify` (MEMUSAGE_SITES_VERIFY): every stack the walk along unwind rows gives is
// compared with libunwind's, and a difference ends the process (verify_stack).
bool load(bool verify = false);

// Code was unloaded (dlclose): the rows the walk along unwind rows keeps for its addresses
// are forgotten, and libunwind's caches flushed (unw_flush_cache), which otherwise go on
// unwinding another library loaded at the same addresses with the unloaded one's rows.
void forget_unloaded_code();

// The verify mode's summary for the user: stacks walked and compared, stacks libunwind
// unwound alone. Null when the mode is off.
const char* verify_summary();

// A thread that will capture no more stacks (it is exiting): it gives its place among the
// threads that unwind with libunwind's trace cache to the next one (unwind.cpp says why
// there are only so many). Async-signal-safe.
void end_thread();

// A forked child: the threads that held places did not come with it.
void after_fork_in_child();

// At most `max` frames of the caller's stack with their stack pointers, step by step
// (unw_step: no memory kept for the thread), innermost first, without the collector's
// frames as capture() leaves them out. From a signal handler, `signal_context` is the
// interrupted context (a ucontext_t): the stack is the interrupted code's, whose innermost
// frame is no return address. Null: the calling stack. Async-signal-safe as libunwind's
// local unwinding is (its lock is taken with signals blocked).
// `cut` says whether frames were left beyond `max`.
// `outer`, if given, receives the frames from the `max`th on (the last one kept
// included), folded by instruction pointer, each with the bytes it held of the stack
// measured between outer->low and outer->high (sites_format::StackPeakOuterFrame).
struct OuterFrames {
    sites_format::StackPeakOuterFrame* entries;  // room for kMaxStackPeakOuter
    uintptr_t low, high;                         // the measured stack
    uint32_t count;                              // entries filled
};
uint32_t capture_frames(sites_format::StackPeakFrame* frames, uint32_t max,
                        const void* signal_context, bool* cut = nullptr,
                        OuterFrames* outer = nullptr);

namespace detail {
using Backtrace = int (*)(void** buffer, int size);
inline constinit Backtrace backtrace_function = nullptr;
// The walk along unwind rows (row_walk.h) is taken first; when it gives up, libunwind.
inline constinit bool walks_rows = false;
inline constinit bool verifying = false;

// How a thread unwinds: with libunwind's unw_backtrace and its per-thread trace cache
// (traced), or step by step without one (stepped). Undecided until its first capture;
// choosing while it takes a place, where a signal handler's capture steps.
enum class Way : uint8_t { undecided, choosing, traced, stepped };
inline __thread Way thread_way = Way::undecided;

// The thread's way, taking a place among the traced threads if one is free.
__attribute__((noinline, cold)) Way choose_way();

// What unw_backtrace returns, by unw_step: the same frames, no memory kept for the thread.
__attribute__((noinline)) int step_backtrace(void** buffer, int size);

// The executable segment holding the collector's code: frames in it are our own.
inline constinit uintptr_t own_code_start = 0;
inline constinit uintptr_t own_code_end = 0;
// libunwind's: its frames are ours too when a signal handler interrupted an unwind.
inline constinit uintptr_t unwinder_code_start = 0;
inline constinit uintptr_t unwinder_code_end = 0;
// Room for the collector's frames on top of the deepest stack a site keeps.
inline constexpr uint32_t kOwnFramesRoom = 16;

inline bool is_collectors(uintptr_t address) {
    return (address >= own_code_start && address < own_code_end) ||
           (address >= unwinder_code_start && address < unwinder_code_end);
}

// A frame of ours below the program's frames: a signal handler's call interrupted one of the
// collector's (maybe inside the real allocator it called, or inside libunwind). The frames
// between the handler's signal frame and ours belong to the interrupted call, which the
// program sees as one call of its own: the new depth ends at the signal frame, or only the
// frame of ours is left out when there is none.
__attribute__((noinline, cold)) uint32_t depth_to_signal_frame(const uintptr_t* frames,
                                                               uint32_t depth);

// Set at the first dlclose: unw_backtrace's per-thread trace cache keeps the rows of
// unloaded code whatever unw_flush_cache says, and unwinds another library loaded at the
// same addresses with them (a frame lost); the step-by-step unwind honours the flush.
inline constinit bool code_was_unloaded = false;

// unw_backtrace's or the step-by-step unwind's raw frames, as the thread's way says.
__attribute__((always_inline)) inline int unwind_with_libunwind(void** buffer, int size) {
    Way way = thread_way;
    if (__builtin_expect(way == Way::undecided, 0)) way = choose_way();
    return __builtin_expect(way == Way::traced && !code_was_unloaded, 1)
               ? backtrace_function(buffer, size)
               : step_backtrace(buffer, size);
}

// At most `max` of the raw frames, without the collector's (capture() says which).
__attribute__((always_inline)) inline uint32_t program_frames(void* const* buffer, int found,
                                                              uintptr_t* frames, uint32_t max) {
    uint32_t depth = 0;
    for (uint32_t i = 0; i < static_cast<uint32_t>(found) && depth < max; ++i) {
        auto address = reinterpret_cast<uintptr_t>(buffer[i]);
        if (__builtin_expect(is_collectors(address), 0)) {
            if (depth != 0) depth = depth_to_signal_frame(frames, depth);
            continue;
        }
        frames[depth++] = unwinder_abi::frame_address(address);
    }
    return depth;
}

// A thread's first unwind with libunwind, whose thread-local memory it allocates then
// (sites::prepare_thread): the walk along unwind rows may leave it for much later.
__attribute__((noinline)) inline void unwind_once_with_libunwind() {
    void* buffer[1];
    unwind_with_libunwind(buffer, 1);
}

// How a capture took its stack: libunwind unwound it, the walk along unwind rows walked
// it (all of it, or its inner frames up to the thread's last walk: resumed), or the stack
// memo (stack_memo.h) recalled it.
enum class Taken : uint8_t { unwound, walked, resumed, recalled };

// MEMUSAGE_SITES_VERIFY: the stack libunwind gives here against `frames` (taken without
// libunwind: walked or recalled); on any difference both go to standard error and the
// process aborts.
__attribute__((noinline, cold)) void verify_stack(const uintptr_t* frames, uint32_t depth,
                                                  uint32_t max, Taken taken);
}  // namespace detail

// At most `max` return addresses of the caller's stack, innermost first, without the
// collector's own frames (the hook the program called, and what it called; and a call of
// ours a signal handler interrupted, with what it called). `start` is
// unwinder_abi::start_registers() taken in the caller, where the walk along unwind rows
// starts (one frame of ours fewer to step than from inside walk()); `trail` says what the
// walk read, and is empty when libunwind unwound the stack. Takes no lock of ours; only
// libunwind's and the dynamic loader's. Inlined into its caller: every frame of ours is one
// more step for the unwinder, which costs as much as a frame of the program. `spine`: the
// thread's last walk, for the walk along unwind rows (row_walk::walk).
__attribute__((always_inline)) inline uint32_t capture(uintptr_t* frames, uint32_t max,
                                                       const unwinder_abi::StartRegisters& start,
                                                       row_walk::Trail& trail,
                                                       row_walk::SpineUse* spine = nullptr) {
    using namespace detail;
    trail.words = row_walk::Trail::kUnkept;
    if (backtrace_function == nullptr) return 0;
    void* buffer[sites_format::kMaxDepth + kOwnFramesRoom];
    uint32_t room = max + kOwnFramesRoom;
    if (room > sizeof buffer / sizeof buffer[0]) room = sizeof buffer / sizeof buffer[0];
    int walked =
        walks_rows ? row_walk::walk(start.ip, start.sp, start.fp, frames, max, trail, spine) : -1;
    uint32_t depth;
    if (__builtin_expect(walked >= 0, 1)) {
        depth = static_cast<uint32_t>(walked);
    } else {
        trail.words = row_walk::Trail::kUnkept;
        int found = unwind_with_libunwind(buffer, static_cast<int>(room));
        depth = program_frames(buffer, found, frames, max);
    }
    if (__builtin_expect(verifying, 0))
        verify_stack(frames, depth, max,
                     walked < 0                           ? Taken::unwound
                     : spine != nullptr && spine->resumed ? Taken::resumed
                                                          : Taken::walked);
    return depth;
}

}  // namespace memusage::unwind
