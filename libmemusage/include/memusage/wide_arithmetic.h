// SPDX-License-Identifier: MIT
// Sums and products wider than a word: 64-bit machines have 128-bit integers, 32-bit ones
// do not.
// The collector (its event recording's clock) and memusagestat (scaling counts to columns
// and buckets) share it, so that both build for 32-bit boards.
#pragma once

#include <cstdint>

namespace memusage {

struct WideQuotient {
    uint64_t quotient;   // its bits above 64 dropped
    uint64_t remainder;  // below the divisor
};

// a * b / c, exact, for c != 0.
inline WideQuotient divide_product(uint64_t a, uint64_t b, uint64_t c) {
#ifdef __SIZEOF_INT128__
    const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
    return {static_cast<uint64_t>(product / c), static_cast<uint64_t>(product % c)};
#else
    // The product in two words, from the four products of the halves.
    uint64_t a_low = a & 0xffffffff, a_high = a >> 32;
    uint64_t b_low = b & 0xffffffff, b_high = b >> 32;
    uint64_t low_low = a_low * b_low, low_high = a_low * b_high;
    uint64_t high_low = a_high * b_low, high_high = a_high * b_high;
    uint64_t middle = (low_low >> 32) + (low_high & 0xffffffff) + (high_low & 0xffffffff);
    uint64_t low = (low_low & 0xffffffff) | (middle << 32);
    uint64_t high = high_high + (low_high >> 32) + (high_low >> 32) + (middle >> 32);
    // Long division, a bit at a time; the remainder stays below c, and doubled may carry
    // out of the word, when it is certainly above c.
    uint64_t quotient = 0, remainder = 0;
    for (int bit = 127; bit >= 0; --bit) {
        uint64_t word = bit >= 64 ? high : low;
        bool carry = (remainder >> 63) != 0;
        remainder = (remainder << 1) | ((word >> (bit & 63)) & 1);
        if (carry || remainder >= c) {
            remainder -= c;
            if (bit < 64) quotient |= uint64_t{1} << bit;
        }
    }
    return {quotient, remainder};
#endif
}

// A sum of 64-bit values that may pass 2^64 (a run's block lives summed in clock cycles),
// in two words, so it is the same on every machine.
struct WideSum {
    uint64_t high = 0, low = 0;

    void add(uint64_t value) {
        low += value;
        high += low < value;  // the carry out of the low word
    }
    double value() const {
        return static_cast<double>(high) * 18446744073709551616.0 + static_cast<double>(low);
    }
};

// a * b / c rounded down, and rounded up.
inline uint64_t multiply_divide(uint64_t a, uint64_t b, uint64_t c) {
    return divide_product(a, b, c).quotient;
}
inline uint64_t multiply_divide_up(uint64_t a, uint64_t b, uint64_t c) {
    const WideQuotient result = divide_product(a, b, c);
    return result.quotient + (result.remainder != 0);
}

}  // namespace memusage
