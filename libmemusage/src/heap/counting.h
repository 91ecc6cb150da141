// SPDX-License-Identifier: MIT
// glibc's counting rules (what each outcome of each call adds to the summary's rows, the
// heap and the data file), one function per outcome. The hooks decide what happened; these
// decide what it counts as. Uncounted has the same functions
// doing nothing: the heap code is written once and serves both. HeapCounter lists them, and
// every counter is checked against it, so that a function added to one and not the other
// does not compile.
#pragma once

#include <cerrno>
#include <concepts>
#include <cstdint>

#include "heap/block.h"
#include "heap/counting_extras.h"
#include "platform/bench_pieces.h"
#include "record/recorder.h"
#include "record/thread_log.h"
#include "sites/site_accounts.h"
#include "sites/sites.h"
#include "sites/stack_peaks.h"

namespace memusage {

// What the heap code (tracked_heap.h, intercept/traced_maps.h) may ask of a counter: every
// outcome it counts. A new one goes here, into BasicCounting and into Uncounted.
template <typename C>
concept HeapCounter = requires(C counter, Call call, uint64_t size, int64_t change, uint32_t tag,
                               bool moved, const void* block, const EndedBlock& ended) {
    { counter.allocation_requested(call, size) } -> std::same_as<void>;
    { counter.impossible_request(call) } -> std::same_as<void>;
    { counter.failed(call) } -> std::same_as<void>;
    { counter.admit(call, size) } -> std::same_as<bool>;
    { counter.admission_unused(size) } -> std::same_as<void>;
    { counter.allocated(size, block) } -> std::same_as<void>;
    { counter.mapped(size, size) } -> std::same_as<void>;
    { counter.protection_changed(change) } -> std::same_as<void>;
    { counter.resize_requested(call, size, size) } -> std::same_as<void>;
    { counter.realloc_call() } -> std::same_as<void>;
    { counter.realloc_freed(size, block) } -> std::same_as<void>;
    { counter.reallocated(size, size, moved, block, block) } -> std::same_as<void>;
    { counter.free_null() } -> std::same_as<void>;
    { counter.freed(size, block) } -> std::same_as<void>;
    { counter.site(size) } -> std::same_as<uint32_t>;
    { counter.keep_site(tag) } -> std::same_as<void>;
    { counter.ending(ended) } -> std::same_as<void>;
    { counter.resized_site(tag, size, size) } -> std::same_as<uint32_t>;
    { counter.reweighed(tag, tag, size) } -> std::same_as<void>;
    { counter.grown_at(tag, tag, size, size) } -> std::same_as<uint32_t>;
    { counter.regrown(tag, tag, size, tag, tag, size) } -> std::same_as<void>;
    { counter.unmap_requested() } -> std::same_as<void>;
    { counter.unmapped(size, size) } -> std::same_as<void>;
    { counter.remapped(size, size, moved, size, size) } -> std::same_as<void>;
};

// kShort: the short way (ShortCounting), for calls while nothing beyond the counters
// and the stream is on (counting_extras::calls_do_more() false): the tests of the extras,
// the allocation sites and the event recording are constants, and the stack pointer is
// read when the event is recorded, so that the hooks have less to keep across the real
// allocator's call. kSampled (with kShort): the sampled short way (SampledCounting), for
// calls while only sampled allocation sites are on (counting_extras::calls_only_sample()):
// the short way, with the sample's countdown on each new block's bytes; the few blocks in
// the sample, and their resizes and frees, do their sites' work.
template <bool kShort, bool kSampled = false>
class BasicCounting {
  public:
    BasicCounting(Recorder& recorder, ThreadLog& log, uintptr_t stack_pointer = 0)
        : recorder_(recorder), log_(log), sp_(stack_pointer) {}

    // malloc, calloc, the aligned family, mmap: counted when asked, whatever happens.
    void allocation_requested(Call call, uint64_t size) {
        if constexpr (!bench_off::counting) {
            ++log_.stats.calls_of(call);
            log_.stats.bytes_of(call) += size;
        }
        if constexpr (!bench_off::histogram) ++log_.stats.histogram[histogram_bucket(size)];
    }
    // A size that does not fit in 64 bits (calloc's product, size plus our header):
    // a call and a failure, in the large bucket, adding no bytes it could not have.
    void impossible_request(Call call) {
        ++log_.stats.calls_of(call);
        ++log_.stats.histogram[kHistogramLarge];
        ++log_.stats.failed_of(call);
    }
    void failed(Call call) { ++log_.stats.failed_of(call); }

    // Before the real allocator is asked: may an allocation call adding `bytes` to the
    // heap go ahead? No, under the allocation limit or failure injection: the call
    // fails as glibc's malloc fails for lack of memory. `bytes` stay reserved until
    // the allocation fails after all (admission_unused) or is freed.
    bool admit(Call call, uint64_t bytes) {
        if (__builtin_expect(!extras_on(), 1)) return true;
        if (counting_extras::admit(call, bytes)) return true;
        failed(call);
        errno = ENOMEM;
        return false;
    }
    void admission_unused(uint64_t bytes) { released(bytes); }
    __attribute__((always_inline)) void allocated(uint64_t size, const void* block) {
        note_size(size);
        if (__builtin_expect(with_sites() && site_ != 0, 0)) note_latest_block(block);
        if (__builtin_expect(!kShort && recorder_.new_blocks_need_more(), 0)) {
            if (recording_blocks())
                return record_block(recorder_, log_, sp_, static_cast<int64_t>(size), site_,
                                    BlockChange{.address = address_of(block),
                                                .size = size,
                                                .makes_described = makes_described()});
        }
        record(static_cast<int64_t>(size), site_);
    }
    // A map adds its accessible bytes (none when PROT_NONE); one placed over traced
    // ones (MAP_FIXED) replaces their accessible bytes.
    void mapped(uint64_t accessible_bytes, uint64_t replaced_bytes) {
        record(static_cast<int64_t>(accessible_bytes) - static_cast<int64_t>(replaced_bytes));
    }
    // mprotect made traced bytes accessible (a commit) or PROT_NONE again: no row, no
    // call counted, only the heap.
    void protection_changed(int64_t accessible_change) { record(accessible_change); }

    // realloc and mremap: growth counts as new memory, the new size as a request.
    void resize_requested(Call call, uint64_t old_size, uint64_t new_size) {
        ++log_.stats.calls_of(call);
        if (new_size > old_size) log_.stats.bytes_of(call) += new_size - old_size;
        ++log_.stats.histogram[histogram_bucket(new_size)];
    }
    void realloc_call() { ++log_.stats.calls_of(Call::realloc); }
    void realloc_freed(uint64_t old_size, const void* block) {
        note_size(old_size);
        released(old_size);
        ++log_.stats.realloc_free;
        log_.stats.bytes_of(Call::free) += old_size;
        const uint32_t site = freed_site(block);
        if (__builtin_expect(recording_blocks(), 0))
            return record_block(recorder_, log_, sp_, -static_cast<int64_t>(old_size), site,
                                BlockChange{.old_address = address_of(block), .ended = ended_});
        record(-static_cast<int64_t>(old_size), site);
    }
    // "nomove" counts resizes done in place, whatever the label suggests. `old_block`
    // is null for realloc(NULL, n), which makes a new block.
    void reallocated(uint64_t old_size, uint64_t new_size, bool moved, const void* old_block,
                     const void* new_block) {
        // realloc(NULL, n) makes a new block; a resize keeps its block (README: a realloc
        // keeps a block at its site), so the thread's latest block resized stays its latest;
        // a resize of any other block is a heap call, which ends that block's wait.
        if (__builtin_expect(with_sites() && site_ != 0, 0) &&
            (old_block == nullptr || is_latest_block(old_block)))
            note_latest_block(new_block);
        if (!moved) ++log_.stats.realloc_nomove;
        if (new_size < old_size) {
            ++log_.stats.realloc_dec;
            log_.shrunk_bytes += old_size - new_size;
            released(old_size - new_size);
        }
        note_size(new_size > old_size ? new_size - old_size : old_size - new_size);
        int64_t change = static_cast<int64_t>(new_size) - static_cast<int64_t>(old_size);
        if (__builtin_expect(recording_blocks(), 0))
            return record_block(
                recorder_, log_, sp_, change, site_,
                BlockChange{.address = address_of(new_block),
                            .old_address = address_of(old_block),
                            .size = new_size,
                            .ended = ended_,
                            .makes_described =
                                old_block == nullptr ? makes_described() : ended_.described});
        record(change, site_);
    }

    // free(NULL) is no heap call for the temporary blocks (heaptrack never sees one): the
    // thread's latest block waits on.
    void free_null() {
        ++log_.stats.calls_of(Call::free);
        if constexpr (with_sites()) ++log_.latest_calls;
    }
    __attribute__((always_inline)) void freed(uint64_t size, const void* block) {
        note_size(size);
        if constexpr (!bench_off::counting) {
            ++log_.stats.calls_of(Call::free);
            log_.stats.bytes_of(Call::free) += size;
        }
        const uint32_t site = freed_site(block);
        if (__builtin_expect(recording_blocks(), 0)) {
            released(size);
            return record_block(recorder_, log_, sp_, -static_cast<int64_t>(size), site,
                                BlockChange{.old_address = address_of(block), .ended = ended_});
        }
        // The bytes leave the heap with the record: one test of the extras' flag, not two.
        record(-static_cast<int64_t>(size), site, size);
    }

    // munmap: the row counts what was asked; the heap loses only the accessible bytes
    // traced maps added.
    void unmap_requested() { ++log_.stats.calls_of(Call::munmap); }
    void unmapped(uint64_t length, uint64_t accessible_bytes) {
        log_.stats.bytes_of(Call::munmap) += length;
        record(-static_cast<int64_t>(accessible_bytes));
    }
    // mremap: the heap gains the new mapping's accessible bytes and loses those the old
    // one (and whatever the new one replaced) had.
    void remapped(uint64_t old_size, uint64_t new_size, bool moved, uint64_t accessible_new,
                  uint64_t accessible_old) {
        if (!moved) ++log_.stats.mremap_nomove;
        if (new_size < old_size) ++log_.stats.mremap_dec;
        record(static_cast<int64_t>(accessible_new) - static_cast<int64_t>(accessible_old));
    }

    // Allocation sites (sites.h). A new block of `size` bytes: its site tag, 0 when off
    // (or, sampled, when the block is not in the sample).
    __attribute__((always_inline)) uint32_t site(uint64_t size) {
        if constexpr (kSampled) {
            // The sampled short way's whole per-call work: a countdown and a branch.
            uint64_t left = sites::bytes_to_next_sample;
            if (__builtin_expect(size < left, 1)) {
                sites::bytes_to_next_sample = left - size;
                return 0;
            }
            uint32_t tag = sites::sampled_site(size);
            site_ = site_word(SiteChange::new_block, tag);
            return tag;
        }
        if (__builtin_expect(sites_on(), 0)) {
            uint32_t tag = sites::site_for(size);
            site_ = site_word(SiteChange::new_block, tag);
            return tag;
        }
        return 0;
    }
    // An existing block, resized or freed: it keeps the site (and weight) it was allocated with.
    void keep_site(uint32_t tag) {
        if constexpr (with_sites()) site_ = site_word(SiteChange::resize, tag);
    }
    // An existing block about to be resized or freed: with the event recording on, a
    // described block's description (heap/block.h), for its record. The general way only:
    // the recording never takes the short ways.
    void ending(const EndedBlock& ended) {
        if constexpr (!kShort) {
            if (__builtin_expect(ended.described, 0)) ended_ = ended;
        }
    }
    // Sampled sites: a block of tag `tag` about to grow from `old_size` to `new_size` bytes
    // takes the weight of its new size, or enters the sample (sites.h). Its tag after the
    // resize; exact sites, or a block not growing: the tag it has.
    uint32_t resized_site(uint32_t tag, uint64_t old_size, uint64_t new_size) {
        if (!kSampled && (!sites_on() || sites::sample_interval == 0)) return tag;
        if (new_size <= old_size) return tag;
        if (tag == 0) return sites::site_for_growth(old_size, new_size);
        return sites::resized_tag(tag, new_size);
    }
    // The resize took place and changed the block's tag from `old_tag` to `new_tag`: the
    // site's own event (site_accounts.h, kReweighed) for the `old_size` bytes it held, before
    // the resize's own. Seen only by the site figures.
    void reweighed(uint32_t old_tag, uint32_t new_tag, uint64_t old_size) {
        if (__builtin_expect(new_tag == old_tag, 1)) return;
        recorder_.record(log_,
                         reweighed_change(old_tag == 0 ? 0 : weight_code_of(old_tag), old_size), 0,
                         site_word(SiteChange::resize, new_tag));
    }

    // A block of tag `tag`, last grown at `grown_at` (0: never), about to be resized from
    // `old_size` to `new_size` bytes: the stack it will have grown at. A growth takes the
    // calling stack (the realloc's); any other resize keeps what the block had. A block
    // outside the sites (tag 0) has none: one the growth lets into the sample has the
    // realloc's stack for its site already.
    uint32_t grown_at(uint32_t tag, uint32_t grown_at, uint64_t old_size, uint64_t new_size) {
        if (!sites_on() || tag == 0) return 0;
        return new_size > old_size ? sites::capture_site() : grown_at;
    }
    // A block resized or freed: it leaves the pair of its site `old_tag` and the stack
    // `old_grown_at` with its `old_size` bytes, and joins that of `new_tag` and
    // `new_grown_at` with `new_size` (site_accounts.h, kRegrown). Seen only by the sites.
    void regrown(uint32_t old_tag, uint32_t old_grown_at, uint64_t old_size, uint32_t new_tag,
                 uint32_t new_grown_at, uint64_t new_size) {
        if constexpr (kShort) return;
        if (old_grown_at != 0 && old_tag != 0)
            recorder_.record(log_, regrown_change(true, old_size), old_grown_at,
                             site_word(SiteChange::resize, old_tag));
        if (new_grown_at != 0 && new_tag != 0)
            recorder_.record(log_, regrown_change(false, new_size), new_grown_at,
                             site_word(SiteChange::resize, new_tag));
    }

  private:
    // A block of kLargeHeapChange bytes or more made, freed or resized by that much: the live
    // figures' next copy is due at the call's end (ThreadLog::publish_countdown). One compare
    // of what the call has in hand.
    __attribute__((always_inline)) void note_size(uint64_t bytes) {
        if (__builtin_expect(bytes >= static_cast<uint64_t>(kLargeHeapChange), 0))
            log_.publish_countdown = kPublishNow;
    }
    // Temporary blocks (heaptrack's "directly followed by its deallocation"): a block with
    // a site is freed before its thread made any other heap call. The thread's heap calls
    // are counted anyway (those that did not fail), so a new block with a site notes
    // itself and that count, and its free compares: calls without a site do nothing for
    // it. Per thread, no lock: the thread's own state.
    static uint64_t heap_calls(const ThreadLog& log) {
        uint64_t calls = 0;
        for (Call call : {Call::malloc, Call::realloc, Call::calloc, Call::aligned, Call::free})
            calls += log.stats.calls_of(call) - log.stats.failed_of(call);
        return calls;
    }
    void note_latest_block(const void* block) {
        log_.latest_block = address_of(block);
        log_.latest_calls = heap_calls(log_);
    }
    // Whether `block` is the thread's latest new block, and this call its first heap call
    // since (counted already, as each call counts itself first).
    bool is_latest_block(const void* block) const {
        return log_.latest_block == address_of(block) && heap_calls(log_) == log_.latest_calls + 1;
    }
    // A freed block's site word: temporary when it is the thread's latest new block and the
    // thread made no other heap call since.
    uint32_t freed_site(const void* block) {
        if (!with_sites() || __builtin_expect(site_ == 0, 1)) return 0;
        return site_word(is_latest_block(block) ? SiteChange::freed_temporary : SiteChange::freed,
                         site_);
    }
    // Inlined, as allocated() and freed() are, into the hooks, so that a counted call
    // makes no call of its own to count (bench_pieces.sh measures the pieces).
    // `released_bytes`: what the call took from the heap, released to the extras here.
    __attribute__((always_inline)) void record(int64_t heap_change, uint32_t site = 0,
                                               uint64_t released_bytes = 0) {
        if constexpr (bench_off::record) return;
        uint64_t stack = 0;
        if constexpr (!bench_off::stack) stack = stack_use(log_, kShort ? stack_pointer() : sp_);
        // What stack_use() promises, told to the compiler, so that it may drop the
        // recorder's saturation.
        if (stack > UINT32_MAX) __builtin_unreachable();
        if (__builtin_expect(extras_on(), 0)) {
            if (released_bytes != 0) counting_extras::release(released_bytes);
            return counting_extras::record(recorder_, log_, heap_change, stack, site, nullptr);
        }
        recorder_.template record<kShort>(log_, heap_change, stack, site);
    }
    // The event recording (MEMUSAGE_EVENTS) keeps what each heap event did to which block:
    // the block the event made (`address`), the one it ended (`old_address`) and the
    // block's size now. Out of line, and chosen in the heap functions, so that record()
    // and the hooks carry none of it.
    bool recording_blocks() const { return !kShort && recorder_.logs_have_blocks(); }
    // The new block of this call is described (heap/block.h's header_for: it has a site).
    bool makes_described() const { return described_blocks && site_ != 0; }
    static uint64_t address_of(const void* block) { return reinterpret_cast<uintptr_t>(block); }
    // Static, as stack_use_measured(): a call that took the Counting's address would make it
    // live in memory, to be reloaded after every call the hot path makes.
    __attribute__((noinline)) static void record_block(Recorder& recorder, ThreadLog& log,
                                                       uintptr_t sp, int64_t heap_change,
                                                       uint32_t site, const BlockChange& block) {
        uint64_t stack = stack_use(log, sp);
        if (__builtin_expect(extras_on(), 0))
            return counting_extras::record(recorder, log, heap_change, stack, site, &block);
        recorder.record_with_block(log, heap_change, stack, site, block);
    }
    // The thread's stack use at `sp`, at most 32 bits (an event's). One subtraction and one
    // compare on nearly every call (two above the start): the thread's first call, a call
    // off its own stack and a new stack peak worth capturing (stack_peaks.h) take the way
    // out.
    __attribute__((always_inline)) static uint64_t stack_use(ThreadLog& log, uintptr_t sp) {
        uint64_t use = log.stack_start - sp;
        if (__builtin_expect(use < log.stack_fast_limit, 1)) return use;
        if (__builtin_expect(sp - log.stack_start < log.stack_room_above, 1)) return 0;
        return stack_use_measured(log, sp);
    }
    __attribute__((noinline)) static uint64_t stack_use_measured(ThreadLog& log, uintptr_t sp) {
        uint64_t stack = log.stack_use(sp);
        if (__builtin_expect(stack > log.stack_capture_above, 0))
            log.stack_capture_above =
                stack_peaks::capture(stack, sp, !log.own_stack.holds(sp), nullptr);
        log.refresh_stack_fast_limit();
        return stack < UINT32_MAX ? stack : UINT32_MAX;
    }
    void released(uint64_t bytes) {
        if (__builtin_expect(extras_on(), 0)) counting_extras::release(bytes);
    }

    static bool extras_on() { return !kShort && counting_extras::active(); }
    static bool sites_on() { return !kShort && sites::enabled; }
    // Whether this way may see blocks with sites: the general way and the sampled short way.
    static constexpr bool with_sites() { return !kShort || kSampled; }

    Recorder& recorder_;
    ThreadLog& log_;
    uintptr_t sp_;
    uint32_t site_ = 0;  // the site word (site_accounts.h) of this call's block
    EndedBlock ended_;   // a described block this call resizes or frees (ending())
};

using Counting = BasicCounting<false>;
using ShortCounting = BasicCounting<true>;
using SampledCounting = BasicCounting<true, true>;

// For calls that must not be counted (inside a hook where counting would have to wait,
// or after the summary) on blocks that may carry our header; new blocks get none.
struct Uncounted {
    void allocation_requested(Call, uint64_t) {}
    void impossible_request(Call) {}
    void failed(Call) {}
    bool admit(Call, uint64_t) { return true; }
    void admission_unused(uint64_t) {}
    void allocated(uint64_t, const void*) {}
    void mapped(uint64_t, uint64_t) {}
    void protection_changed(int64_t) {}
    void resize_requested(Call, uint64_t, uint64_t) {}
    void realloc_call() {}
    void realloc_freed(uint64_t, const void*) {}
    void reallocated(uint64_t, uint64_t, bool, const void*, const void*) {}
    void free_null() {}
    void freed(uint64_t, const void*) {}
    uint32_t site(uint64_t) { return 0; }
    void keep_site(uint32_t) {}
    void ending(const EndedBlock&) {}
    uint32_t resized_site(uint32_t tag, uint64_t, uint64_t) { return tag; }
    void reweighed(uint32_t, uint32_t, uint64_t) {}
    uint32_t grown_at(uint32_t, uint32_t, uint64_t, uint64_t) { return 0; }
    void regrown(uint32_t, uint32_t, uint64_t, uint32_t, uint32_t, uint64_t) {}
    void unmap_requested() {}
    void unmapped(uint64_t, uint64_t) {}
    void remapped(uint64_t, uint64_t, bool, uint64_t, uint64_t) {}
};

static_assert(HeapCounter<Counting>);
static_assert(HeapCounter<ShortCounting>);
static_assert(HeapCounter<SampledCounting>);
static_assert(HeapCounter<Uncounted>);

}  // namespace memusage
