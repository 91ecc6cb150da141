// SPDX-License-Identifier: MIT
// dlclose, seen by the unwinding (unwind::forget_unloaded_code): the rows the walk along
// unwind rows keeps per code address, and libunwind's caches, are forgotten once code is
// unloaded, since other code may be loaded at the same addresses. The program's call goes on to the
// C library's dlclose unchanged. dlopen is not intercepted: it looks at its caller to find the
// paths to search, and only an unloading frees addresses for other code.
#include <dlfcn.h>

#include <atomic>

#include "sites/unwind.h"

namespace {
using Dlclose = int (*)(void*);
// Found on the first call. Not a function's static: its guard would link in the C++
// runtime's exception pool, 71 KiB allocated in every profiled program.
std::atomic<Dlclose> next_dlclose{nullptr};
}  // namespace

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
    Dlclose next = next_dlclose.load(std::memory_order_relaxed);
    if (next == nullptr) {
        next = reinterpret_cast<Dlclose>(dlsym(RTLD_NEXT, "dlclose"));
        next_dlclose.store(next, std::memory_order_relaxed);
    }
    int result = next != nullptr ? next(handle) : -1;
    memusage::unwind::forget_unloaded_code();
    return result;
}
