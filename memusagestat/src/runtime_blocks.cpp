#include "runtime_blocks.h"

namespace memusagestat {
namespace {

// glibc's stdio allocates a stream's buffer here, on the stream's first use, and keeps it
// until exit (only valgrind's __libc_freeres hook frees it). The lines getline and
// getdelim allocate for the program come from __getdelim itself, not from here.
bool allocates_stdio_buffer(const SourceFrame& frame) {
    return frame.function == "_IO_file_doallocate" || frame.function == "_IO_wfile_doallocate";
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
        if (allocates_stdio_buffer(frames[i])) return true;
    return shown.via != nullptr && !shown.via->function.empty() &&
           keeps_its_blocks(short_name(shown.via->function));
}

}  // namespace memusagestat
