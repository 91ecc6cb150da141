// SPDX-License-Identifier: MIT
#include "heap/allocation_gate.h"

#include "heap/counting_extras.h"

namespace memusage {

constinit AllocationGate allocation_gate;

namespace {

// splitmix64: every call number gets its own well-mixed random number, so the same
// seed fails the same calls whatever the threads do between them.
uint64_t mixed(uint64_t seed, uint64_t number) {
    uint64_t z = seed + number * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace

void AllocationGate::configure(const GateConfig& config) {
    config_ = config;
    active_ = config.active();
    if (active_) counting_extras::turn_on();
}

bool AllocationGate::inject(uint64_t number) const {
    switch (config_.injection) {
        case Injection::none:
            return false;
        case Injection::nth_call:
            return number == config_.nth;
        case Injection::from_nth_call:
            return number >= config_.nth;
        case Injection::random:
            return config_.probability.always ||
                   mixed(config_.seed, number) < config_.probability.threshold;
    }
    return false;
}

bool AllocationGate::reserve(Call call, uint64_t bytes) {
    uint64_t heap = heap_.load(std::memory_order_relaxed);
    for (;;) {
        uint64_t wanted;
        if (__builtin_add_overflow(heap, bytes, &wanted) || wanted > config_.limit) break;
        if (heap_.compare_exchange_weak(heap, wanted, std::memory_order_relaxed)) return true;
    }
    if (refused_.fetch_add(1, std::memory_order_relaxed) == 0) {
        first_refused_heap_.store(heap, std::memory_order_relaxed);
        first_refused_size_.store(bytes, std::memory_order_relaxed);
        first_refused_call_.store(static_cast<unsigned>(call), std::memory_order_relaxed);
    }
    return false;
}

bool AllocationGate::admit(Call call, uint64_t bytes) {
    if (config_.injection != Injection::none) {
        uint64_t number = calls_.fetch_add(1, std::memory_order_relaxed) + 1;
        if (inject(number)) {
            uint64_t index = injected_.fetch_add(1, std::memory_order_relaxed);
            if (index < GateReport::kListed) listed_[index] = InjectedCall{number, call};
            return false;
        }
    }
    return !config_.limited || reserve(call, bytes);
}

void AllocationGate::release(uint64_t bytes) {
    if (!config_.limited) return;
    // Blocks made before counting began (or while it was off) were never reserved:
    // the gate's heap stops at zero rather than wrapping.
    uint64_t heap = heap_.load(std::memory_order_relaxed);
    while (!heap_.compare_exchange_weak(heap, heap > bytes ? heap - bytes : 0,
                                        std::memory_order_relaxed)) {
    }
}

GateReport AllocationGate::report() const {
    GateReport report;
    report.config = config_;
    report.refused = refused_.load(std::memory_order_relaxed);
    report.first_refused_heap = first_refused_heap_.load(std::memory_order_relaxed);
    report.first_refused_size = first_refused_size_.load(std::memory_order_relaxed);
    report.first_refused_call =
        static_cast<Call>(first_refused_call_.load(std::memory_order_relaxed));
    report.injected = injected_.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < GateReport::kListed; ++i) report.listed[i] = listed_[i];
    return report;
}

}  // namespace memusage
