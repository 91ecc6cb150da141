// The calling stack as return addresses, by libunwind's unw_backtrace. libunwind is loaded
// privately (dlopen with RTLD_LOCAL), never linked: linked, its exported _Unwind_* and
// backtrace would take the place of libgcc's for the whole profiled program and break its
// exceptions.
#pragma once

#include <cstdint>

#include "memusage/sites_format.h"

namespace memusage::unwind {

// Loads libunwind.so.8 and finds the collector's own code. False if libunwind is missing:
// every stack is then empty. Call once, before any thread captures.
bool load();

namespace detail {
using Backtrace = int (*)(void** buffer, int size);
inline constinit Backtrace backtrace_function = nullptr;
// The executable segment holding the collector's code: frames in it are our own.
inline constinit uintptr_t own_code_start = 0;
inline constinit uintptr_t own_code_end = 0;
// Room for the collector's frames on top of the deepest stack a site keeps.
inline constexpr uint32_t kOwnFramesRoom = 16;
}  // namespace detail

// At most `max` return addresses of the caller's stack, innermost first, without the
// collector's own frames (the hook the program called, and what it called). Takes no lock
// of ours; only libunwind's and the dynamic loader's. Inlined into its caller: every frame
// of ours is one more step for the unwinder, which costs as much as a frame of the program.
__attribute__((always_inline)) inline uint32_t capture(uintptr_t* frames, uint32_t max) {
    using namespace detail;
    if (backtrace_function == nullptr) return 0;
    void* buffer[sites_format::kMaxDepth + kOwnFramesRoom];
    uint32_t room = max + kOwnFramesRoom;
    if (room > sizeof buffer / sizeof buffer[0]) room = sizeof buffer / sizeof buffer[0];
    int found = backtrace_function(buffer, static_cast<int>(room));
    uint32_t first = 0;
    auto is_own = [](void* address) {
        auto value = reinterpret_cast<uintptr_t>(address);
        return value >= own_code_start && value < own_code_end;
    };
    while (first < static_cast<uint32_t>(found) && is_own(buffer[first])) ++first;
    uint32_t depth = 0;
    for (uint32_t i = first; i < static_cast<uint32_t>(found) && depth < max; ++i)
        frames[depth++] = reinterpret_cast<uintptr_t>(buffer[i]);
    return depth;
}

}  // namespace memusage::unwind
