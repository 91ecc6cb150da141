// SPDX-License-Identifier: MIT
#include "sites/sampling.h"

#include <cmath>

namespace memusage::sampling {

double weight_of_code(uint32_t code) {
    if (code == 0) return 1.0;
    return std::exp2(static_cast<double>(code - 1) / kCodesPerDoubling);
}

Choice choose(uint64_t size, uint64_t interval) {
    if (size >= interval) return {kUnitCode, 1.0};
    double p = -std::expm1(-static_cast<double>(size) / static_cast<double>(interval));
    if (!(p > 0)) return {kMaxCode, 0.0};  // 0 bytes hold no point
    // The smallest code whose weight is at least 1/p: its 1/weight is at most p.
    double steps = std::ceil(-std::log2(p) * kCodesPerDoubling - 1e-9);
    if (steps < 0) steps = 0;
    uint32_t code = steps >= kMaxCode - 1 ? kMaxCode : static_cast<uint32_t>(steps) + 1;
    double keep = 1.0 / (weight_of_code(code) * p);
    return {code, keep < 1.0 ? keep : 1.0};
}

double inclusion(uint64_t size, uint64_t interval) {
    Choice choice = choose(size, interval);
    return choice.keep == 0.0 ? 0.0 : 1.0 / weight_of_code(choice.code);
}

double holds_point(uint64_t bytes, uint64_t interval) {
    return -std::expm1(-static_cast<double>(bytes) / static_cast<double>(interval));
}

int64_t next_countdown(Generator& generator, uint64_t interval) {
    double bytes = -std::log(generator.uniform()) * static_cast<double>(interval);
    if (!(bytes >= 1.0)) return 1;
    if (bytes > 0x1.0p62) return INT64_C(1) << 62;
    return static_cast<int64_t>(bytes);
}

uint64_t seed_for(uint64_t base, uint64_t stream) {
    uint64_t z = base + (stream + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z != 0 ? z : 0x9e3779b97f4a7c15ULL;
}

}  // namespace memusage::sampling
