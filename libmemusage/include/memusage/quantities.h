// SPDX-License-Identifier: MIT
// The numbers the allocation limit and failure injection take, parsed the same way by
// the driver (options) and the collector (environment): whole text or nothing, never a
// silently different value. No allocation: the collector parses at start-up.
#pragma once

#include <cstdint>
#include <cstring>

namespace memusage {

// Decimal digits only, the whole text, without overflow.
inline bool parse_count(const char* text, uint64_t& value) {
    if (text == nullptr || *text == '\0') return false;
    uint64_t result = 0;
    for (const char* p = text; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9') return false;
        if (__builtin_mul_overflow(result, 10, &result) ||
            __builtin_add_overflow(result, static_cast<uint64_t>(*p - '0'), &result))
            return false;
    }
    value = result;
    return true;
}

// Bytes: digits, then nothing or a binary unit: k, K, KiB; M, MiB; G, GiB (powers of
// 1024, as the graph's k and M are).
inline bool parse_size(const char* text, uint64_t& bytes) {
    if (text == nullptr) return false;
    size_t digits = 0;
    while (text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits >= 32) return false;
    char number[32];
    memcpy(number, text, digits);
    number[digits] = '\0';
    uint64_t value;
    if (!parse_count(number, value)) return false;
    const char* unit = text + digits;
    unsigned shift = 0;
    if (*unit == '\0')
        shift = 0;
    else if (strcmp(unit, "k") == 0 || strcmp(unit, "K") == 0 || strcmp(unit, "KiB") == 0)
        shift = 10;
    else if (strcmp(unit, "M") == 0 || strcmp(unit, "MiB") == 0)
        shift = 20;
    else if (strcmp(unit, "G") == 0 || strcmp(unit, "GiB") == 0)
        shift = 30;
    else
        return false;
    if (shift != 0 && value > (UINT64_MAX >> shift)) return false;
    bytes = value << shift;
    return true;
}

// A probability in [0, 1], written as a decimal fraction ("0.25", "1", ".5"), kept as
// a threshold on 64-bit random numbers: a call fails when its number is below it.
// "1" fails every call: 2^64 does not fit, so `always` says it.
struct Probability {
    uint64_t threshold = 0;
    bool always = false;
    char text[24] = {};  // as given, for the summary
};

inline bool parse_probability(const char* text, Probability& probability) {
    if (text == nullptr || *text == '\0' || strlen(text) >= sizeof(probability.text)) return false;
    const char* p = text;
    uint64_t whole = 0;
    bool any_digit = false;
    while (*p >= '0' && *p <= '9') {
        whole = whole * 10 + static_cast<uint64_t>(*p++ - '0');
        any_digit = true;
        if (whole > 1) return false;
    }
    // The fraction, to 18 decimal places, as a fixed-point number.
    uint64_t fraction = 0, scale = 1;
    if (*p == '.') {
        ++p;
        for (; *p >= '0' && *p <= '9'; ++p) {
            any_digit = true;
            if (scale < 1000000000000000000ULL) {
                fraction = fraction * 10 + static_cast<uint64_t>(*p - '0');
                scale *= 10;
            }
        }
    }
    if (*p != '\0' || !any_digit) return false;
    if (whole == 1 && fraction != 0) return false;
    Probability result;
    memcpy(result.text, text, strlen(text) + 1);
    if (whole == 1) {
        result.always = true;
        result.threshold = UINT64_MAX;
    } else {
        // fraction / scale of 2^64, by long division one bit at a time: exact, and
        // without the 128-bit integers 32-bit machines lack. The remainder stays below
        // scale; doubled, it may pass 2^64 (the carry), and is then certainly above it.
        uint64_t threshold = 0, remainder = fraction;
        for (int bit = 0; bit < 64; ++bit) {
            bool carry = (remainder >> 63) != 0;
            remainder <<= 1;
            threshold <<= 1;
            if (carry || remainder >= scale) {
                remainder -= scale;
                threshold |= 1;
            }
        }
        result.threshold = threshold;
    }
    probability = result;
    return true;
}

}  // namespace memusage
