// Allocation sites (MEMUSAGE_SITES), the collector's side: which stack each counted block
// came from, and the sites file at exit. The hooks only ask for the calling stack's site;
// the figures are kept by the recorder's stream (site_accounts.h), in event order.
#pragma once

#include <cstdint>

#include "site_accounts.h"

namespace memusage::sites {

// Set once at start, before any thread counts, and never cleared: a block's header says
// whether it carries a site, so blocks made before and after agree.
inline constinit bool enabled = false;

// `path` is MEMUSAGE_SITES, `owner` MEMUSAGE_SITES_OWNER (0 when unset). Opens the file,
// marks this process as its owner for the programs it starts (as the data file does), loads the
// unwinder and reserves the tables. Runs while the collector is still starting, so what it
// allocates is not counted. Sites stay off when another process of the run owns the file, or it
// cannot be created, or there is no memory for the tables; they are on without stacks when
// libunwind is missing. Returns a message for the user, or null.
const char* start(const char* path, long owner);

// What the recorder's stream keeps the figures in; null when sites are off.
SiteAccounts* accounts();

// The calling stack's site: unwound, then interned. Called inside a hook, before the
// real allocator or the recorder takes any lock.
uint32_t capture_site();

// A thread's first counted call, before it counts anything: libunwind's first unwind on a
// thread allocates its thread-local memory (through __tls_get_addr, with malloc), which the
// caller keeps uncounted here, where it is still attaching the thread. Later, the same
// allocation would look like a signal handler's call inside a hook, which is counted.
void prepare_thread();

// At exit, once the recorder has merged every event (from a fatal signal's handler too,
// `crashed`): writes the file if this process owns it. Returns a message for the user
// when it could not, else null.
const char* finish(bool crashed);

// A forked child: the file is its parent's.
void after_fork_in_child();

}  // namespace memusage::sites
