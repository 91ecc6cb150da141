// SPDX-License-Identifier: MIT
#include "sites/sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

#include "memusage/sites_format.h"
#include "platform/build_variant.h"
#include "platform/clock.h"
#include "platform/config.h"
#include "platform/owned_file.h"
#include "platform/site_scratch.h"
#include "platform/unwinder_abi.h"
#include "sites/sampling.h"
#include "sites/sites_file.h"
#include "sites/stack_memo.h"
#include "sites/stack_peaks.h"
#include "sites/stack_table.h"
#include "sites/unwind.h"

namespace memusage::sites {
namespace {

// Bounds on what the tables may reserve (address space; pages are given when touched):
// a million distinct stacks of 16 frames on average.
constexpr uint32_t kMaxStacks = 1u << 20;
constexpr uint64_t kMaxFrames = uint64_t{kMaxStacks} * 16;

static_assert(kMaxStacks <= kStackIdMask + 1, "an id fits in a site tag");

constinit StackTable stacks;
constinit SiteAccounts site_accounts;
constinit SitesFile file;
bool have_unwinder = false;
const char* config_path = nullptr;
std::atomic<bool> written{false};

// Sampling: each thread's generator, seeded on its first draw from the run's seed and the
// thread's turn (deterministic for a given seed and order of threads' first allocations).
__thread sampling::Generator generator = {0};
uint64_t seed_base = 0;
std::atomic<uint64_t> seeded_threads{0};

// The first refused allocation call's site, once taken.
std::atomic<bool> refused_call_noted{false};
std::atomic<uint32_t> first_refused_site{0};

char message[4200];
// With the reason the opening left in errno: a FIFO or a device is "not a regular file".
const char* cannot_open(const char* path) {
    int error = errno;
    struct stat st;
    const char* reason = strerrordesc_np(error);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) reason = "not a regular file";
    snprintf(message, sizeof message, "cannot write the allocation sites file %s: %s", path,
             reason != nullptr ? reason : "unknown error");
    return message;
}

// The file is locked by a process that did not start this one (one that did passes the
// file on, and this one would not have tried): a second run given the same name must not
// pass the first run's file for its own. Null when /proc/locks names no holder, or names this
// process (its own lock from before an exec, kept by a child it forked).
const char* held_by_another(const char* path) {
    long holder = lock_holder(path);
    if (holder == 0 || holder == static_cast<long>(getpid())) return nullptr;
    snprintf(message, sizeof message,
             "cannot write the allocation sites file %s: process %ld is writing it", path, holder);
    return message;
}

// At exit, with the reason the write gave (a file size limit, a full file system): readers
// refuse what was written as a file cut short.
const char* cannot_finish(const char* path, int error) {
    const char* reason = strerrordesc_np(error);
    snprintf(message, sizeof message,
             "cannot write the allocation sites file %s: %s; it is left incomplete", path,
             reason != nullptr ? reason : "unknown error");
    return message;
}

}  // namespace

namespace {

// Another process of the run (one that started this one) owns the file: false, and no
// message. Else the file is opened, and this process marked as its owner.
bool open_file(const char* path, long owner, const char*& problem) {
    problem = nullptr;
    if (owner != 0 && owner != getpid()) return false;
    switch (file.open(path)) {
        case OpenResult::opened:
            break;
        case OpenResult::busy:
        case OpenResult::held:
            problem = held_by_another(path);
            return false;
        case OpenResult::failed:
            problem = cannot_open(path);
            return false;
    }
    config_path = path;
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", static_cast<long>(getpid()));
    setenv(kSitesOwnerVariable, pid, 1);
    return true;
}

bool stack_peaks_only = false;

}  // namespace

const char* start_stack_peaks_only(const char* path, long owner) {
    const char* problem;
    if (!open_file(path, owner, problem)) return problem;
    have_unwinder = unwind::load();
    if (!stack_peaks::start()) {
        file.close();
        return "out of memory for the stack peaks";
    }
    stack_peaks_only = true;
    if (have_unwinder) return nullptr;
    return unwinder_abi::kSupported
               ? "cannot load libunwind.so.8: stack peaks have no frames"
               : "no unwinder for this architecture: stack peaks have no frames";
}

const char* start(const char* path, long owner, uint64_t interval, const uint64_t* seed,
                  bool verify) {
    const char* problem;
    if (!open_file(path, owner, problem)) return problem;
    if (!stacks.init(kMaxStacks, kMaxFrames) || !site_accounts.init(kMaxStacks, interval)) {
        file.close();
        return "out of memory for the allocation sites tables";
    }
    have_unwinder = unwind::load(verify);
    // Without room for them, the sites go on without stack peaks. An attached collector keeps
    // none: it measures a thread's stack from its first call since the attach, not from
    // where the thread began.
    if (!kAttachVariant) stack_peaks::start();
    sample_interval = interval;
    seed_base = seed != nullptr ? *seed : cycle_counter() ^ (static_cast<uint64_t>(getpid()) << 32);
    enabled = true;
    if (have_unwinder) return nullptr;
    return unwinder_abi::kSupported
               ? "cannot load libunwind.so.8: allocation sites have no stacks"
               : "no unwinder for this architecture: allocation sites have no stacks";
}

SiteAccounts* accounts() { return enabled ? &site_accounts : nullptr; }

uint32_t largest_held_now(HeldNow* out, uint32_t max) {
    if (!enabled || max == 0) return 0;
    uint32_t count = 0;
    uint32_t limit = stacks.id_limit();
    if (limit > site_accounts.capacity()) limit = site_accounts.capacity();
    for (uint32_t id = StackTable::kFirstId; id < limit; ++id) {
        const SiteFigures& site = site_accounts.site(id);
        if (site.current <= 0) continue;
        auto bytes = site_accounts.in_units(static_cast<uint64_t>(site.current));
        if (count == max && bytes <= out[count - 1].bytes) continue;
        if (count < max) ++count;
        // Insertion into the few kept, most bytes first.
        uint32_t at = count - 1;
        for (; at > 0 && out[at - 1].bytes < bytes; --at) out[at] = out[at - 1];
        uint64_t blocks = site.current_blocks > 0
                              ? site_accounts.in_units(static_cast<uint64_t>(site.current_blocks))
                              : 0;
        out[at] = HeldNow{bytes, blocks, nullptr, 0};
        out[at].frames = stacks.frames_of(id, out[at].depth);
    }
    return count;
}

namespace {

// A per-thread cache in front of the shared table: a direct-mapped array from a stack's
// hash to its id, so that a stack seen before on this thread costs no probe of the shared
// table and no comparison of its frames. One word an entry, written with one store, so a
// signal handler's call that interrupts an update finds the old entry or the new one: the
// id in the low bits, the hash's bits above them as the check (with the index, 52 bits of
// the hash must agree). Thread-local memory: it comes and goes with the thread's stack.
constexpr uint32_t kCacheEntries = 256;
MEMUSAGE_SITES_SCRATCH uint64_t stack_cache[kCacheEntries];

uint32_t intern_cached(const uintptr_t* frames, uint32_t depth, uint64_t hash) {
    if constexpr (!kSitesScratchPerThread) return stacks.intern(frames, depth, hash);
    uint64_t& entry = stack_cache[hash % kCacheEntries];
    uint64_t check = hash & ~uint64_t{kStackIdMask};
    uint64_t cached = entry;
    if (cached != 0 && (cached & ~uint64_t{kStackIdMask}) == check)
        return static_cast<uint32_t>(cached & kStackIdMask);
    uint32_t id = stacks.intern(frames, depth, hash);
    entry = check | id;
    return id;
}

// MEMUSAGE_SITES_VERIFY: a stack the memo gave, as the stack table holds it, against
// libunwind's.
__attribute__((noinline, cold)) void verify_recalled(uint32_t id) {
    uint32_t depth = 0;
    const uintptr_t* frames = stacks.frames_of(id, depth);
    if (id != StackTable::kTableFull)
        unwind::detail::verify_stack(frames, depth, sites_format::kMaxDepth,
                                     unwind::detail::Taken::recalled);
}

// The thread's last walk along unwind rows, and room for the next (row_walk::Spine).
MEMUSAGE_SITES_SCRATCH row_walk::Spine spine;
MEMUSAGE_SITES_SCRATCH row_walk::SpineScratch spine_scratch;

}  // namespace

namespace {

// The stack walked (or unwound) from `start`, taken in capture_site(), whose frame stays
// while this one runs, and remembered when `memo_free`. Out of line: a recalled stack, the
// usual one, pays for none of this one's room (the frames, the trail).
__attribute__((noinline)) uint32_t walk_site(const unwinder_abi::StartRegisters& start,
                                             bool memo_free) {
    uintptr_t frames[sites_format::kMaxDepth];
    row_walk::Trail trail;
    row_walk::SpineUse spine_use{&spine, &spine_scratch, 0, false, false};
    uint32_t depth = unwind::capture(frames, sites_format::kMaxDepth, start, trail,
                                     memo_free ? &spine_use : nullptr);
    uint32_t id = intern_cached(
        frames, depth,
        memo_free && spine_use.hashed ? spine_use.hash : StackTable::hash_of(frames, depth));
    if (memo_free) {
        if (trail.words != row_walk::Trail::kUnkept) stack_memo::remember(start, trail, id);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        stack_memo::busy = false;
    }
    return id;
}

}  // namespace

uint32_t capture_site() {
    unwinder_abi::StartRegisters start = unwinder_abi::start_registers();
    // A signal handler's capture inside this one's memo work leaves the memo alone.
    bool memo_free = kSitesScratchPerThread && unwind::detail::walks_rows && !stack_memo::busy;
    if (memo_free) {
        stack_memo::busy = true;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        if (uint32_t id = stack_memo::recall(start)) {
            if (__builtin_expect(unwind::detail::verifying, 0)) verify_recalled(id);
            std::atomic_signal_fence(std::memory_order_seq_cst);
            stack_memo::busy = false;
            return id;
        }
    }
    // Not a tail call: the walk starts in this frame (`start` is in it).
    return walk_site(start, memo_free);
}

namespace {

// Whether the countdown ends at a point of the process, or only at the end of a stretch of
// the interval with no point in it.
__thread bool point_at_countdown = false;

sampling::Generator& own_generator() {
    sampling::Generator& own = generator;
    if (own.state == 0) own.state = sampling::seed_for(seed_base, seeded_threads.fetch_add(1));
    return own;
}

// The distance to the next point, walked in stretches of at most the interval.
void draw_countdown(sampling::Generator& own) {
    auto distance = static_cast<uint64_t>(sampling::next_countdown(own, sample_interval));
    point_at_countdown = distance <= sample_interval;
    bytes_to_next_sample = point_at_countdown ? distance : sample_interval;
}

// Whether the next `bytes` of the thread's allocations (fewer than the interval, and at least
// what is left of the countdown, or on the thread's first draw) hold a point. The process has
// no memory: after a point, the next is as far from the range's end as from anywhere.
bool range_holds_point(sampling::Generator& own, uint64_t bytes) {
    if (bytes_to_next_sample == 0) draw_countdown(own);
    for (;;) {
        uint64_t left = bytes_to_next_sample;
        if (bytes < left) {
            bytes_to_next_sample = left - bytes;
            return false;
        }
        if (point_at_countdown) {
            draw_countdown(own);
            return true;
        }
        bytes -= left;
        draw_countdown(own);
    }
}

}  // namespace

uint32_t sampled_site(uint64_t size) {
    sampling::Generator& own = own_generator();
    if (size >= sample_interval) {
        if (bytes_to_next_sample == 0) draw_countdown(own);
        return site_tag(capture_site(), sampling::kUnitCode);
    }
    if (!range_holds_point(own, size)) return 0;
    sampling::Choice choice = sampling::choose(size, sample_interval);
    if (choice.keep < 1.0 && own.uniform() > choice.keep) return 0;
    return site_tag(capture_site(), choice.code);
}

uint32_t grown_into_sample(uint64_t old_size, uint64_t new_size) {
    sampling::Generator& own = own_generator();
    if (new_size >= sample_interval) {
        if (bytes_to_next_sample == 0) draw_countdown(own);
        return site_tag(capture_site(), sampling::kUnitCode);
    }
    // In the sample with chance pi(old) before, pi(new) after: a block outside it enters
    // with chance (pi(new) - pi(old)) / (1 - pi(old)), taken from the growth's points.
    uint64_t growth = new_size - old_size;
    if (!range_holds_point(own, growth)) return 0;
    double before = sampling::inclusion(old_size, sample_interval);
    double after = sampling::inclusion(new_size, sample_interval);
    double enter = before < 1.0 ? (after - before) / (1.0 - before) : 0.0;
    double keep = enter / sampling::holds_point(growth, sample_interval);
    if (!(keep > 0.0) || (keep < 1.0 && own.uniform() > keep)) return 0;
    return site_tag(capture_site(), sampling::choose(new_size, sample_interval).code);
}

uint32_t resized_tag(uint32_t tag, uint64_t new_size) {
    uint32_t code = weight_code_of(tag);
    uint32_t fits = sampling::choose(new_size, sample_interval).code;
    return fits < code ? site_tag(stack_id_of(tag), fits) : tag;
}

void note_refused_call() {
    if (!enabled || refused_call_noted.exchange(true, std::memory_order_relaxed)) return;
    first_refused_site.store(capture_site(), std::memory_order_relaxed);
}

void prepare_thread() {
    if (enabled && unwind::detail::backtrace_function != nullptr)
        unwind::detail::unwind_once_with_libunwind();
    if (stack_peaks::enabled) {  // the step-by-step unwind's first use, likewise
        sites_format::StackPeakFrame frames[1];
        unwind::capture_frames(frames, 1, nullptr);
    }
}

const char* finish(bool crashed, const sites_format::StreamBufferRecord* stream_buffers,
                   uint32_t stream_buffer_count) {
    if ((!enabled && !stack_peaks_only) || !file.is_open() || written.exchange(true))
        return nullptr;
    uint32_t flags = (crashed ? sites_format::kEndedByCrash : 0) |
                     (have_unwinder ? 0 : sites_format::kUnwinderMissing) |
                     (stack_peaks_only ? sites_format::kNoAllocationSites : 0) |
                     (stack_peaks::dropped() ? sites_format::kStackPeaksDropped : 0);
    bool ok =
        file.write(stacks, site_accounts, flags, first_refused_site.load(std::memory_order_relaxed),
                   stream_buffers, stream_buffer_count);
    file.close();
    return ok ? nullptr : cannot_finish(config_path, file.write_error());
}

const char* verify_summary() { return enabled ? unwind::verify_summary() : nullptr; }

void end_thread() {
    stack_peaks::end_thread();
    if (enabled) unwind::end_thread();
}

void after_fork_in_child() {
    file.close();
    unwind::after_fork_in_child();
}

}  // namespace memusage::sites
