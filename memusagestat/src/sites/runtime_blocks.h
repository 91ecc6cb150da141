// Which blocks the C and C++ runtimes allocate for themselves and keep until exit by
// design (valgrind calls them "still reachable"): no leak of the program's, counted apart
// by the leak and long-lived reports. Decided for each block from its own stack, never
// for a shown site, which may fold together stacks of both kinds (getline's line buffers
// and the stream's own buffer are both "main via getline").
#pragma once

#include <vector>

#include "sites/frame_folding.h"
#include "sites/symbolizer.h"

namespace memusagestat {

// `frames`: a block's whole symbolised stack, innermost first; `shown`: its shown part
// (shown_frames). True when the block is the runtime's:
// - a stack with no frame of the program's (libstdc++'s exception pool, made before main);
// - a stream's buffer, allocated by stdio on the stream's first use;
// - libgcc_s, which glibc loads for pthread_exit's and pthread_cancel's unwinding;
// - what dlopen and pthread_create keep (a library's link map, a thread's TLS).
// The first three are matched among the runtime's own frames, those before the program's
// innermost one, so a block the program allocated itself is never taken for them.
bool kept_by_runtime(const std::vector<SourceFrame>& frames, const ShownFrames& shown);

}  // namespace memusagestat
