#include "unwind.h"

#include <dlfcn.h>
#include <link.h>

namespace memusage::unwind {
namespace {

int find_own_code(dl_phdr_info* info, size_t, void*) {
    auto ours = reinterpret_cast<uintptr_t>(&load);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + segment.p_vaddr;
        uintptr_t end = start + segment.p_memsz;
        if (ours >= start && ours < end) {
            detail::own_code_start = start;
            detail::own_code_end = end;
            return 1;
        }
    }
    return 0;
}

}  // namespace

bool load() {
    dl_iterate_phdr(find_own_code, nullptr);
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return false;
    detail::backtrace_function =
        reinterpret_cast<detail::Backtrace>(dlsym(library, "unw_backtrace"));
    return detail::backtrace_function != nullptr;
}

}  // namespace memusage::unwind
