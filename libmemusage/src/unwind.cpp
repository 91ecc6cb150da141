#include "unwind.h"

#include <dlfcn.h>
#include <link.h>

#include "memusage/sites_format.h"

namespace memusage::unwind {
namespace {

using Backtrace = int (*)(void** buffer, int size);

Backtrace backtrace_function = nullptr;

// The executable segment holding the collector's code: frames in it are our own.
uintptr_t own_code_start = 0;
uintptr_t own_code_end = 0;

// Room for the collector's frames on top of the deepest stack a site keeps.
constexpr uint32_t kOwnFramesRoom = 16;

int find_own_code(dl_phdr_info* info, size_t, void*) {
    auto ours = reinterpret_cast<uintptr_t>(&capture);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + segment.p_vaddr;
        uintptr_t end = start + segment.p_memsz;
        if (ours >= start && ours < end) {
            own_code_start = start;
            own_code_end = end;
            return 1;
        }
    }
    return 0;
}

bool is_own(uintptr_t address) { return address >= own_code_start && address < own_code_end; }

}  // namespace

bool load() {
    dl_iterate_phdr(find_own_code, nullptr);
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return false;
    backtrace_function = reinterpret_cast<Backtrace>(dlsym(library, "unw_backtrace"));
    return backtrace_function != nullptr;
}

uint32_t capture(uintptr_t* frames, uint32_t max) {
    if (backtrace_function == nullptr) return 0;
    void* buffer[sites_format::kMaxDepth + kOwnFramesRoom];
    uint32_t room = max + kOwnFramesRoom;
    if (room > sizeof buffer / sizeof buffer[0]) room = sizeof buffer / sizeof buffer[0];
    int found = backtrace_function(buffer, static_cast<int>(room));
    uint32_t first = 0;
    while (first < static_cast<uint32_t>(found) &&
           is_own(reinterpret_cast<uintptr_t>(buffer[first])))
        ++first;
    uint32_t depth = 0;
    for (uint32_t i = first; i < static_cast<uint32_t>(found) && depth < max; ++i)
        frames[depth++] = reinterpret_cast<uintptr_t>(buffer[i]);
    return depth;
}

}  // namespace memusage::unwind
