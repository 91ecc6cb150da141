// SPDX-License-Identifier: MIT
// Where the allocation sites' large per-thread scratch lives (the stack memo, the unwound
// stacks' cache and spine). Each thread has its own in the preloaded collector. A library
// loaded into a running process (the attached collector, libmemusage-attach.so) gets its
// thread-local storage from malloc, for every thread, at every attach, kept until the thread
// ends: there the scratch is one copy that nothing uses, and each capture unwinds the whole
// stack and finds it in the shared stack table (sites.cpp), without the memo or the cache.
#pragma once

#if defined(MEMUSAGE_ATTACH_VARIANT)
#define MEMUSAGE_SITES_SCRATCH
inline constexpr bool kSitesScratchPerThread = false;
#else
#define MEMUSAGE_SITES_SCRATCH __thread
inline constexpr bool kSitesScratchPerThread = true;
#endif
