// SPDX-License-Identifier: MIT
// The calling stack's return addresses without libunwind's unwinder: a walk along the
// unwind rows (the DWARF call frame information) that libunwind's own parser reads for
// each return address, kept per address. It follows only the rows whose every step it can
// take exactly as libunwind's step would, and gives up on a stack with any other frame
// (unw_backtrace then unwinds it whole). Why the result is libunwind's: row_walk.cpp.
#pragma once

#include <atomic>
#include <cstdint>

#include "platform/unwinder_abi.h"

namespace memusage::row_walk {

// What a walk's frames depend on besides the rows, for the stack memo (stack_memo.h): the
// words of the stack it read and used, in the order read, at their places above the
// starting SP (in words), and whether it used the starting FP. A walk from the same
// registers over the same words, with the same rows (`generation`), reaches the same
// frames: each address it reads is a function of the words read before it.
struct Trail {
    // As many as the memo keeps of a walk: a stack of about as many frames (a deeper one is
    // not remembered, and takes its outer frames from the spine below). Small, as the trail
    // is on the stack of every capture, which may be a signal handler's on a small alternate
    // stack, and a memo entry holds as many.
    static constexpr uint32_t kMaxWords = 32;
    static constexpr uint32_t kUnkept = kMaxWords + 1;  // `words`: too many, or too far
    uint32_t words;
    uint32_t generation;
    bool uses_start_fp;
    uint16_t place[kMaxWords];  // (address - starting SP) / word size: under 2^16 words
    uintptr_t value[kMaxWords];
};

// The thread's last walk, its spine: a walk from a frame with the same instruction and
// stack pointers as one of the last walk's (and the same frame pointer, where the rest of
// that walk used it) over the same words of the stack from there on reaches the same frames
// from there on (what Trail says of a whole walk holds of its rest). So a walk that meets
// the last one's frame, and finds every word the last walk read from there still holding
// what it held, takes the outer frames from the spine without walking them, and their hash
// (StackTable::hash_of, taken from the outermost frame in) with them: on a deep stack most
// calls change only a few frames on top. Only reads: nothing on the stack is ever written.
// MEMUSAGE_SITES_VERIFY checks every stack so taken against libunwind's.
struct SpineFrame {
    uintptr_t fp;   // the frame pointer at it: compared when `needs_fp`
    uint64_t hash;  // StackTable's hash of the frames from the outermost to this one
    // The words this frame's step read and used: its caller's address (slot 0: none, the
    // walk ended here), and the caller's frame pointer when a later frame's CFA used it.
    uintptr_t return_slot, return_value;
    uintptr_t fp_slot, fp_value;
    bool fp_kept;   // fp_slot's word is one the rest of the walk used
    bool needs_fp;  // the rest of the walk from this frame used `fp` as it is here
};
inline constexpr uint32_t kSpineFrames = 64;
struct Spine {
    uint32_t depth;  // frames kept, outermost first; 0: none (the last walk gave up, or was cut)
    uint32_t generation;
    uintptr_t ip[kSpineFrames], sp[kSpineFrames];  // each frame's address and stack pointer
    SpineFrame frame[kSpineFrames];
};
// A walk's own frames, innermost first, until they join the spine.
struct SpineScratch {
    uintptr_t sp[kSpineFrames];
    SpineFrame frame[kSpineFrames];
};
// What a walk did with the spine (null: a walk that leaves it alone, a signal handler's
// inside the thread's own capture).
struct SpineUse {
    Spine* spine;
    SpineScratch* scratch;
    uint64_t hash;  // out: StackTable::hash_of the stack, when `hashed`
    bool hashed;
    bool resumed;  // out: the outer frames came from the spine
};

// libunwind's functions the rows are read with (unw_init_local, unw_reg_states_iterate;
// null: never walks) and whether this machine has the walk (unwinder_abi::kWalksRows).
// Reserves the table of rows. False: every walk gives up. Call once, before any capture.
bool start(void* init_local, void* reg_states_iterate);

// At most `max` return addresses of the stack from `ip`, `sp` and `fp`, innermost first,
// without the collector's frames on top: what unwind::capture() makes of unw_backtrace's
// frames. The registers are unwinder_abi::start_registers() taken in walk()'s caller, whose
// frame stays while the walk reads it (walk()'s own frame is not stepped); three words, not
// the structure, which would go through memory as words and come back as one wider load (a
// stall). -1 when a frame's row is not one the walk follows (a signal frame, a rule with an
// expression, code without unwind information) or a frame of the collector's lies below the
// program's: libunwind then unwinds the stack. Takes no lock; async-signal-safe as
// unw_backtrace is. `trail` is filled with what the frames depend on. `spine`, if given,
// is the thread's last walk, taken from where it still holds and replaced by this one.
__attribute__((noinline)) int walk(uintptr_t ip, uintptr_t sp, uintptr_t fp, uintptr_t* frames,
                                   uint32_t max, Trail& trail, SpineUse* spine = nullptr);

// The rows' generation, one more at each forget_rows(): a trail of another generation was
// walked on rows since forgotten.
inline constinit std::atomic<uint32_t> generation{0};

// Code was unloaded (dlclose): the rows kept for its addresses are forgotten, since other
// code may be loaded there.
void forget_rows();

}  // namespace memusage::row_walk
