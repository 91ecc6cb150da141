// SPDX-License-Identifier: MIT
// What the allocation limit and failure injection were asked to do and what they did:
// the collector fills it, the summary prints it.
#pragma once

#include <cstdint>

#include "memusage/quantities.h"
#include "memusage/stats.h"

namespace memusage {

enum class Injection { none, nth_call, from_nth_call, random };

struct GateConfig {
    bool limited = false;
    uint64_t limit = 0;  // bytes the heap may hold
    Injection injection = Injection::none;
    uint64_t nth = 0;  // the call number for nth_call and from_nth_call, counted from 1
    Probability probability;
    uint64_t seed = 0;

    bool active() const { return limited || injection != Injection::none; }
};

// One call made to fail, for the summary.
struct InjectedCall {
    uint64_t number;  // the allocation call's number, counted from 1
    Call call;
};

struct GateReport {
    static constexpr uint32_t kListed = 10;

    GateConfig config;
    uint64_t refused = 0;  // calls the limit refused
    uint64_t first_refused_heap = 0, first_refused_size = 0;
    Call first_refused_call = Call::malloc;
    uint64_t injected = 0;              // calls made to fail on purpose
    InjectedCall listed[kListed] = {};  // the first of them
};

}  // namespace memusage
