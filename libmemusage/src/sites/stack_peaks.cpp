// SPDX-License-Identifier: MIT
#include "sites/stack_peaks.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "platform/clock.h"
#include "platform/pages.h"
#include "sites/unwind.h"

namespace memusage::stack_peaks {
namespace {

enum : uint32_t { kFree, kLive, kEnded };

Slot* slots_ = nullptr;
std::atomic<uint32_t> slots_taken{0};
std::atomic<bool> dropped_{false};
uint64_t start_cycles = 0;
uint64_t start_ns = 0;

// The thread's own figures: its slot, and the depth beyond which a capture is worth its
// cost. Shared by the thread's calls and the handlers that interrupt them, which is why
// `capturing` keeps a handler's capture out of one in progress.
__thread Slot* own_slot = nullptr;
__thread uint64_t capture_above = 0;
__thread bool capturing = false;
__thread bool ended = false;

// A deepening stack (a recursion, a loop calling deeper and deeper) would be captured at
// every call: only a depth beyond the last by 1 KiB, or 5% when that is more, is taken. A
// thread is captured a hundred times at most on its way to a megabyte, and its reported
// frames are within the margin of its true peak.
uint64_t next_capture_above(uint64_t depth) {
    uint64_t margin = depth / 20 > 1024 ? depth / 20 : 1024;
    return depth + margin;
}

uint64_t bytes_of(const Slot& slot) {
    return __atomic_load_n(&slot.record.bytes, __ATOMIC_RELAXED);
}

// A new slot while there are some; then the ended thread's with the smallest peak, if it is
// smaller than `depth`. Lock-free: a slot changes hands by compare-and-swap of its state.
Slot* take_slot(uint64_t depth) {
    uint32_t taken = slots_taken.load(std::memory_order_relaxed);
    while (taken < kSlots) {
        if (slots_taken.compare_exchange_weak(taken, taken + 1, std::memory_order_relaxed)) {
            __atomic_store_n(&slots_[taken].state, kLive, __ATOMIC_RELAXED);
            return &slots_[taken];
        }
    }
    for (int attempt = 0; attempt < 4; ++attempt) {
        Slot* smallest = nullptr;
        for (uint32_t i = 0; i < kSlots; ++i) {
            Slot& slot = slots_[i];
            if (__atomic_load_n(&slot.state, __ATOMIC_ACQUIRE) != kEnded) continue;
            if (smallest == nullptr || bytes_of(slot) < bytes_of(*smallest)) smallest = &slot;
        }
        if (smallest == nullptr || bytes_of(*smallest) >= depth) break;
        uint32_t expected = kEnded;
        if (__atomic_compare_exchange_n(&smallest->state, &expected, kLive, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
            dropped_.store(true, std::memory_order_relaxed);
            return smallest;
        }
    }
    dropped_.store(true, std::memory_order_relaxed);
    return nullptr;
}

}  // namespace

bool start() {
    slots_ = static_cast<Slot*>(reserve_pages(sizeof(Slot) * kSlots));
    if (slots_ == nullptr) return false;
    start_cycles = cycle_counter();
    start_ns = monotonic_nanoseconds();
    enabled = true;
    return true;
}

uint64_t capture(uint64_t depth, uintptr_t sp, bool on_signal_stack, const void* signal_context) {
    if (ended) return UINT64_MAX;
    // The log's hint may be behind the thread's figure (a handler's nested log), or a
    // capture of the thread's may be in progress under this one.
    if (depth <= capture_above || capturing) return capture_above;
    capturing = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (own_slot == nullptr) own_slot = take_slot(depth);
    if (Slot* slot = own_slot) {
        sites_format::StackPeakRecord& record = slot->record;
        record.depth = 0;  // a capture torn by a crash's writing shows no frames
        std::atomic_signal_fence(std::memory_order_seq_cst);
        bool cut = false;
        unwind::OuterFrames outer = {slot->outer, sp, static_cast<uintptr_t>(sp + depth), 0};
        uint32_t frames = unwind::capture_frames(slot->frames, sites_format::kMaxStackPeakDepth,
                                                 signal_context, &cut, &outer);
        record.base = sp + depth;
        record.time_ns = cycle_counter();
        pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
        record.tid = static_cast<uint64_t>(tid);
        record.is_main = tid == getpid() ? 1 : 0;
        record.stack = on_signal_stack ? sites_format::kSignalStack : sites_format::kThreadStack;
        record.flags = (signal_context != nullptr ? sites_format::kPeakFromTick : 0) |
                       (cut ? sites_format::kPeakFramesCut : 0) |
                       (cut ? outer.count << sites_format::kPeakOuterShift : 0);
        prctl(PR_GET_NAME, record.name);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        record.depth = frames;
        __atomic_store_n(&record.bytes, depth, __ATOMIC_RELAXED);
    }
    capture_above = next_capture_above(depth);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    capturing = false;
    return capture_above;
}

void end_thread() {
    if (!enabled) return;
    ended = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (own_slot != nullptr) __atomic_store_n(&own_slot->state, kEnded, __ATOMIC_RELEASE);
    own_slot = nullptr;
}

const Slot* slots() { return slots_; }

bool dropped() { return dropped_.load(std::memory_order_relaxed); }

uint64_t nanoseconds_since_start(uint64_t cycles) {
    uint64_t now_cycles = cycle_counter();
    uint64_t now_ns = monotonic_nanoseconds();
    if (cycles <= start_cycles || now_cycles <= start_cycles) return 0;
    double per_cycle =
        static_cast<double>(now_ns - start_ns) / static_cast<double>(now_cycles - start_cycles);
    return static_cast<uint64_t>(static_cast<double>(cycles - start_cycles) * per_cycle);
}

}  // namespace memusage::stack_peaks
