// The calling stack's return addresses without libunwind's unwinder: a walk along the
// unwind rows (the DWARF call frame information) that libunwind's own parser reads for
// each return address, kept per address. It follows only the rows whose every step it can
// take exactly as libunwind's step would, and gives up on a stack with any other frame
// (unw_backtrace then unwinds it whole). Why the result is libunwind's: row_walk.cpp.
#pragma once

#include <cstdint>

#include "platform/unwinder_abi.h"

namespace memusage::row_walk {

// libunwind's functions the rows are read with (unw_init_local, unw_reg_states_iterate;
// null: never walks) and whether this machine has the walk (unwinder_abi::kWalksRows).
// Reserves the table of rows. False: every walk gives up. Call once, before any capture.
bool start(void* init_local, void* reg_states_iterate);

// At most `max` return addresses of the stack from `start` (unwinder_abi::start_registers()
// taken in the function that calls walk(), whose frame stays while the walk reads it: the
// walk's own frame is not stepped), innermost first, without the collector's frames on
// top: what unwind::capture() makes of unw_backtrace's frames.
// -1 when a frame's row is not one the walk follows (a signal frame, a rule with an
// expression, code without unwind information) or a frame of the collector's lies below
// the program's: libunwind then unwinds the stack. Takes no lock; async-signal-safe as
// unw_backtrace is.
__attribute__((noinline)) int walk(unwinder_abi::StartRegisters start, uintptr_t* frames,
                                   uint32_t max);

// Code was unloaded (dlclose): the rows kept for its addresses are forgotten, since other
// code may be loaded there.
void forget_rows();

}  // namespace memusage::row_walk
