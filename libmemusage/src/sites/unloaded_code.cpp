// dlclose, seen by the walk along unwind rows (row_walk.h): the rows it keeps per code
// address are forgotten once code is unloaded, since other code may be loaded at the same
// addresses. The program's call goes on to the C library's dlclose unchanged. dlopen is
// not intercepted: it looks at its caller to find the paths to search, and only an
// unloading frees addresses for other code.
#include <dlfcn.h>

#include "sites/row_walk.h"

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
    using Dlclose = int (*)(void*);
    static Dlclose next = reinterpret_cast<Dlclose>(dlsym(RTLD_NEXT, "dlclose"));
    int result = next != nullptr ? next(handle) : -1;
    memusage::row_walk::forget_rows();
    return result;
}
