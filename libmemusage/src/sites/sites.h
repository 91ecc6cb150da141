// SPDX-License-Identifier: MIT
// Allocation sites (MEMUSAGE_SITES), the collector's side: which stack each counted block
// came from, and the sites file at exit. The hooks only ask for the calling stack's site;
// the figures are kept by the recorder's stream (site_accounts.h), in event order.
#pragma once

#include <cstdint>

#include "memusage/sites_format.h"
#include "sites/site_accounts.h"

namespace memusage::sites {

// Set once at start, before any thread counts, and never cleared: a block's header says
// whether it carries a site, so blocks made before and after agree.
inline constinit bool enabled = false;
// MEMUSAGE_SITES_SAMPLE: 0 for exact sites (every block's stack), else the mean number of
// bytes between sampled points (sampling.h). Set once at start, with `enabled`.
inline constinit uint64_t sample_interval = 0;
// This thread's bytes to go before its countdown ends; 0 before its first draw. Never more
// than the interval (a longer distance to the next point is walked in stretches of the
// interval), so that the one compare of the hooks also sends every block of at least the
// interval, always sampled, the slow way.
inline __thread uint64_t bytes_to_next_sample = 0;

// `path` is MEMUSAGE_SITES, `owner` MEMUSAGE_SITES_OWNER (0 when unset), `interval`
// MEMUSAGE_SITES_SAMPLE (0 exact), `seed` MEMUSAGE_SITES_SEED (null: seeded from the clock).
// Opens the file,
// marks this process as its owner for the programs it starts (as the data file does), loads the
// unwinder and reserves the tables. Runs while the collector is still starting, so what it
// allocates is not counted. Sites stay off when another process of the run owns the file, or it
// cannot be created, or there is no memory for the tables; they are on without stacks when
// libunwind is missing. Returns a message for the user, or null.
// `verify` MEMUSAGE_SITES_VERIFY (unwind::load).
const char* start(const char* path, long owner, uint64_t interval = 0,
                  const uint64_t* seed = nullptr, bool verify = false);

// MEMUSAGE_STACK_PEAK without MEMUSAGE_SITES: the sites file at `path` (with `owner` as for
// start()) keeps the threads' stack peaks (stack_peaks.h) and no allocation site. Stack
// peaks need the unwinder, not the per-allocation capture: `enabled` stays off. start()
// turns stack peaks on as well. Returns a message for the user, or null.
const char* start_stack_peaks_only(const char* path, long owner);

// What the recorder's stream keeps the figures in; null when sites are off.
SiteAccounts* accounts();

// A site holding blocks now, for the live figures (publish/publisher.h).
struct HeldNow {
    uint64_t bytes, blocks;   // in bytes and blocks (sampled: the weighted estimates)
    const uintptr_t* frames;  // innermost first, the collector's own left out
    uint32_t depth;
};
// The `max` sites holding the most bytes now, most first, into `out`; how many. Reads the
// figures the recorder's stream keeps: call with the recorder's lock held and the stream
// merged (Recorder::live_snapshot). One pass over every site the run has seen.
uint32_t largest_held_now(HeldNow* out, uint32_t max);

// The calling stack's site: unwound, then interned. Called inside a hook, before the
// real allocator or the recorder takes any lock.
uint32_t capture_site();
// The countdown reached a block of `size` bytes (or was never drawn): its site tag, or 0
// when it turns out unsampled.
uint32_t sampled_site(uint64_t size);

// A new block's site tag (site_accounts.h): exact, the calling stack's; sampled, 0 for
// most blocks, which are neither unwound nor counted at any site.
inline uint32_t site_for(uint64_t size) {
    if (sample_interval == 0) return capture_site();
    uint64_t left = bytes_to_next_sample;
    if (__builtin_expect(size < left, 1)) {
        bytes_to_next_sample = left - size;
        return 0;
    }
    return sampled_site(size);
}

// A block outside the sample grown by realloc from `old_size` to `new_size` bytes: its
// site tag (the realloc's stack) when it enters the sample now, else 0. Its growth counts
// down as a new block's bytes do; a block grown to at least the interval always enters.
uint32_t grown_into_sample(uint64_t old_size, uint64_t new_size);
inline uint32_t site_for_growth(uint64_t old_size, uint64_t new_size) {
    uint64_t growth = new_size - old_size;
    uint64_t left = bytes_to_next_sample;
    if (__builtin_expect(growth < left && new_size < sample_interval, 1)) {
        bytes_to_next_sample = left - growth;
        return 0;
    }
    return grown_into_sample(old_size, new_size);
}
// A sampled block's tag once realloc made it `new_size` bytes: grown, the weight of its new
// size when that is less (a block of 16 bytes that became 8 MiB stands for 8 MiB blocks no
// more); shrunk, the weight it had (it was sampled with that chance, and still stands for
// what it holds).
uint32_t resized_tag(uint32_t tag, uint64_t new_size);

// An allocation call the allocation limit or failure injection made fail: the first one's
// stack is kept for the report (unwound here, whether or not the call was sampled).
void note_refused_call();

// A thread's first counted call, before it counts anything: libunwind's first unwind on a
// thread allocates its thread-local memory (through __tls_get_addr, with malloc), which the
// caller keeps uncounted here, where it is still attaching the thread. Later, the same
// allocation would look like a signal handler's call inside a hook, which is counted.
void prepare_thread();

// A thread exiting: its stacks from here on take none of what the fast unwind keeps for a
// limited number of threads (unwind.cpp).
void end_thread();

// At exit, once the recorder has merged every event (from a fatal signal's handler too,
// `crashed`): writes the file if this process owns it, with the standard streams' buffers
// still allocated (the C library's own). Returns a message for the user when it could not,
// else null.
const char* finish(bool crashed, const sites_format::StreamBufferRecord* stream_buffers = nullptr,
                   uint32_t stream_buffer_count = 0);

// MEMUSAGE_SITES_VERIFY's summary for the user at exit; null when it is off.
const char* verify_summary();

// A forked child: the file is its parent's.
void after_fork_in_child();

}  // namespace memusage::sites
