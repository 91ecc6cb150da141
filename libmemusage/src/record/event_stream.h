// SPDX-License-Identifier: MIT
// The merged event stream's running state: the global heap rebuilt from the per-event
// changes, the peaks, and the records waiting to be written. Fed in time order by the
// merge of the threads' logs (log_merge.h), or by the one thread recording directly.
#pragma once

#include <cstdint>

#include "memusage/record.h"
#include "platform/bench_pieces.h"
#include "platform/clock.h"
#include "platform/data_file_clock.h"
#include "sites/site_accounts.h"

namespace memusage {

struct EventStream {
    int64_t heap = 0;
    uint64_t last_time = 0;
    // heap_peak is the peak since the program last reset it (the in-process API);
    // run_peak() is the whole run's. Keeping the earlier phases' peak aside costs the
    // events nothing.
    uint64_t heap_peak = 0, stack_peak = 0, total_peak = 0;
    uint64_t earlier_phases_peak = 0;

    uint64_t run_peak() const {
        return heap_peak > earlier_phases_peak ? heap_peak : earlier_phases_peak;
    }
    void start_phase() {
        earlier_phases_peak = run_peak();
        heap_peak = heap > 0 ? static_cast<uint64_t>(heap) : 0;
    }
    Record* output = nullptr;  // null without a data file: the events only feed the peaks
    uint32_t output_used = 0;
    uint32_t output_capacity = 0;
    SiteAccounts* sites = nullptr;  // null unless allocation sites are on

    // One event; true when the record buffer is full and must be written. Inlined into
    // the hooks (a thread recording directly adds here on every call), so that the call
    // costs no saving and restoring of what the hook holds.
    // kOnlyCounting: the caller (a call taking the short way) knows that the event recording
    // is off, so that only the data file needs a time: it is read here, when there is a
    // record to write, and `time` is not looked at. Only an event with a site (`site` not
    // 0) is the site figures' own; they see the others only as new peaks of the heap.
    template <bool kOnlyCounting = false>
    __attribute__((always_inline)) bool add(int64_t heap_change, uint64_t stack, uint64_t time,
                                            uint32_t site = 0) {
        heap += heap_change;
        uint64_t current = heap > 0 ? static_cast<uint64_t>(heap) : 0;
        // A site's own event (site_accounts.h, kReweighed) is not the heap's.
        if (__builtin_expect(site != 0 && sites != nullptr, 0) &&
            on_site_event(sites, site, heap_change, current, stack)) {
            heap -= heap_change;
            return false;
        }
        // A new peak is rare once a program runs: tested and marked unlikely, rather than
        // a maximum stored on every event.
        if constexpr (!bench_off::peak) {
            if (__builtin_expect(current > heap_peak, 0)) {
                heap_peak = current;
                if (sites != nullptr) sites->on_heap_peak(current);
            }
            if (__builtin_expect(stack > stack_peak, 0)) stack_peak = stack;
            if (__builtin_expect(current + stack > total_peak, 0)) total_peak = current + stack;
        }
        if (output == nullptr) return false;
        if constexpr (kOnlyCounting) time = bench_off::stamp ? last_time + 1 : cycle_counter();
        // Stamps of different cores can disagree by a few cycles; the file stays in order.
        last_time = time > last_time ? time : last_time;
        // Counted only once written: a signal handler that ends the run in between
        // finds no half-written record.
        Record& record = output[output_used];
        record.heap = current;
        record.stack = stack;
        record.set_time(data_file_time(last_time));
        return ++output_used == output_capacity;
    }

  private:
    __attribute__((noinline)) static bool on_site_event(SiteAccounts* accounts, uint32_t site,
                                                        int64_t heap_change, uint64_t current,
                                                        uint64_t stack) {
        return accounts->on_event(site, heap_change, current, stack);
    }
};

}  // namespace memusage
