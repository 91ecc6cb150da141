// SPDX-License-Identifier: MIT
// The products wider than a word (memusage/wide_arithmetic.h) as a 32-bit machine computes
// them: this file is compiled without __SIZEOF_INT128__ (CMakeLists.txt), so the header
// takes its two-word path, checked here against this machine's 128-bit integers.
#include <gtest/gtest.h>
#include <memusage/wide_arithmetic.h>

#include <cstdint>
#include <random>

namespace {

#ifdef __SIZEOF_INT128__
#error "this test must take the 32-bit machines' path: compile it with -U__SIZEOF_INT128__"
#endif

TEST(WideArithmetic, TheTwoWordProductDividesAsA128BitOne) {
    std::mt19937_64 random(20);
    for (int round = 0; round < 100000; ++round) {
        // Of every width, so that the product's high word, the divisor's and the quotient's
        // overflow are all met.
        const uint64_t a = random() >> (random() % 64);
        const uint64_t b = random() >> (random() % 64);
        const uint64_t c = (random() >> (random() % 64)) | 1;
        const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
        const memusage::WideQuotient result = memusage::divide_product(a, b, c);
        ASSERT_EQ(result.quotient, static_cast<uint64_t>(product / c)) << a << " " << b << " " << c;
        ASSERT_EQ(result.remainder, static_cast<uint64_t>(product % c))
            << a << " " << b << " " << c;
    }
}

TEST(WideArithmetic, RoundsDownAndUp) {
    EXPECT_EQ(memusage::multiply_divide(7, 3, 4), 5u);
    EXPECT_EQ(memusage::multiply_divide_up(7, 3, 4), 6u);
    EXPECT_EQ(memusage::multiply_divide_up(8, 3, 4), 6u);
    EXPECT_EQ(memusage::multiply_divide(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
    EXPECT_EQ(memusage::multiply_divide_up(UINT64_MAX, 3, 4), UINT64_MAX / 4 * 3 + 3);
}

TEST(WideArithmetic, TheTwoWordSumCarriesPast64Bits) {
    memusage::WideSum sum;
    sum.add(UINT64_MAX);
    sum.add(UINT64_MAX);
    sum.add(2);
    EXPECT_EQ(sum.high, 2u);
    EXPECT_EQ(sum.low, 0u);
    EXPECT_DOUBLE_EQ(sum.value(), 2.0 * 18446744073709551616.0);
    memusage::WideSum small;
    small.add(5);
    small.add(7);
    EXPECT_DOUBLE_EQ(small.value(), 12.0);
}

}  // namespace
