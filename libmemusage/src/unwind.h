// The calling stack as return addresses, by libunwind's unw_backtrace. libunwind is loaded
// privately (dlopen with RTLD_LOCAL), never linked: linked, its exported _Unwind_* and
// backtrace would take the place of libgcc's for the whole profiled program and break its
// exceptions.
#pragma once

#include <cstdint>

namespace memusage::unwind {

// Loads libunwind.so.8 and finds the collector's own code. False if libunwind is missing:
// every stack is then empty. Call once, before any thread captures.
bool load();

// At most `max` return addresses of the caller's stack, innermost first, without the
// collector's own frames (the hook the program called, and what it called). Takes no lock
// of ours; only libunwind's and the dynamic loader's.
uint32_t capture(uintptr_t* frames, uint32_t max);

}  // namespace memusage::unwind
