#include "sites/runtime_blocks.h"

namespace memusagestat {
namespace {

// glibc's stdio allocates a stream's buffer here, on the stream's first use, and keeps it
// until exit (only valgrind's __libc_freeres hook frees it). The lines getline and
// getdelim allocate for the program come from __getdelim itself, not from here.
bool allocates_stdio_buffer(const SourceFrame& frame) {
    return frame.function == "_IO_file_doallocate" || frame.function == "_IO_wfile_doallocate";
}

// glibc loads libgcc_s (dlopen) the first time a thread unwinds for pthread_exit or
// pthread_cancel, and keeps it until exit: __libc_unwind_link_get since glibc 2.34 (in the
// dynamic symbol table, so named without debug files), pthread_cancel_init and
// __libgcc_s_init before. These functions load nothing else.
bool loads_unwinder(const SourceFrame& frame) {
    return frame.function == "__libc_unwind_link_get" || frame.function == "pthread_cancel_init" ||
           frame.function == "__libgcc_s_init";
}

// Calls whose blocks the runtime keeps for as long as what they made lives, which
// programs rarely end: a library loaded with dlopen (its link map, until dlclose), a
// thread (its thread-local storage, kept with glibc's cache of thread stacks).
bool keeps_its_blocks(const std::string& via) {
    return via == "dlopen" || via == "dlmopen" || via == "pthread_create";
}

}  // namespace

bool kept_by_runtime(const std::vector<SourceFrame>& frames, const ShownFrames& shown) {
    if (frames.empty()) return false;
    if (shown.first == 0 && is_wrapper(frames[0])) return true;  // nothing but wrappers
    for (size_t i = 0; i < shown.first; ++i)
        if (allocates_stdio_buffer(frames[i]) || loads_unwinder(frames[i])) return true;
    return shown.via != nullptr && !shown.via->function.empty() &&
           keeps_its_blocks(short_name(shown.via->function));
}

}  // namespace memusagestat
