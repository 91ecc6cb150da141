// SPDX-License-Identifier: MIT
// Where the allocation sites' large per-thread scratch lives (the stack memo, the unwound
// stacks' cache and spine). Each thread has its own in the preloaded collector. The attached
// collector (libmemusage-attach.so) records no sites, and a library loaded into a running
// process gets its thread-local storage from malloc, for every thread, at every attach, kept
// until the thread ends: there the scratch is one copy that nothing uses.
#pragma once

#if defined(MEMUSAGE_ATTACH_VARIANT)
#define MEMUSAGE_SITES_SCRATCH
#else
#define MEMUSAGE_SITES_SCRATCH __thread
#endif
