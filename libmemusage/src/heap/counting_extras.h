// SPDX-License-Identifier: MIT
// The optional work a counted call may have: the allocation gate (limit, failure
// injection), the program's heap callback, the per-thread table's figures. One flag
// says whether any is on, so that a run without them pays one test of it.
#pragma once

#include <atomic>
#include <cstdint>

#include "memusage/stats.h"

namespace memusage {

struct ThreadLog;
struct BlockChange;
class Recorder;

namespace counting_extras {

// What a counted call may have to do beyond its counters and its event. Nothing: calls
// take the short way (ShortCounting, heap/counting.h), which tests none of the rest.
// Sampled allocation sites alone: the sampled short way (SampledCounting), the short way
// with the sample's countdown, its few sampled blocks taking their sites' way. Anything
// else (the extras here, exact sites, the event recording): the general way.
enum class More : uint8_t { nothing, sampled_sites, everything };
inline std::atomic<More> more{More::nothing};
inline bool calls_do_more() { return more.load(std::memory_order_relaxed) != More::nothing; }
inline bool calls_only_sample() {
    return more.load(std::memory_order_relaxed) == More::sampled_sites;
}
// Exact allocation sites and the event recording: set before the first counted call.
inline void calls_will_do_more() { more.store(More::everything, std::memory_order_relaxed); }
// Sampled sites with nothing else on: set before the first counted call.
inline void calls_will_sample() {
    More nothing = More::nothing;
    more.compare_exchange_strong(nothing, More::sampled_sites, std::memory_order_relaxed);
}

// Set at start-up (the gate, the table) or by the program (the callback); never cleared.
inline std::atomic<bool> on{false};
inline bool active() { return on.load(std::memory_order_relaxed); }
inline void turn_on() {
    calls_will_do_more();
    on.store(true, std::memory_order_relaxed);
}

// The slow halves, out of line so the common path stays small.
bool admit(Call call, uint64_t bytes);  // false: the call must fail with ENOMEM
void release(uint64_t bytes);           // bytes left the heap, or an admission went unused
// The event recorded, with what the extras add around it; `block` for the event recording
// (null when it is off).
void record(Recorder& recorder, ThreadLog& log, int64_t heap_change, uint64_t stack, uint32_t site,
            const BlockChange* block);

}  // namespace counting_extras
}  // namespace memusage
