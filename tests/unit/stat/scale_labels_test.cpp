// SPDX-License-Identifier: MIT
#include "draw/scale_labels.h"

#include <gtest/gtest.h>

using memusagestat::quarter_value;
using memusagestat::scale_label;

TEST(ScaleLabels, SmallScalesAreInBytes) {
    EXPECT_EQ(scale_label(0, 16), "0");
    EXPECT_EQ(scale_label(12, 16), "12");
    EXPECT_EQ(scale_label(1023, 1023), "1023");
}

TEST(ScaleLabels, KibibytesBelowHundredMebibytesTruncated) {
    EXPECT_EQ(scale_label(0, 1342128), "0k");
    EXPECT_EQ(scale_label(1342128, 1342128), "1310k");  // 1310.67k: never rounded up
    EXPECT_EQ(scale_label(335532, 1342128), "327k");
    EXPECT_EQ(scale_label(100 * 1048576 - 1, 100 * 1048576 - 1), "102399k");
}

TEST(ScaleLabels, MebibytesFromHundredMebibytes) {
    EXPECT_EQ(scale_label(100 * 1048576, 100 * 1048576), "100M");
    EXPECT_EQ(scale_label(200 * 1048576, 200 * 1048576), "200M");
    EXPECT_EQ(scale_label(0, 200 * 1048576), "0M");
}

TEST(ScaleLabels, SmallUnitCountsKeepADecimalSoQuartersDiffer) {
    EXPECT_EQ(scale_label(256, 1024), "0.2k");
    EXPECT_EQ(scale_label(512, 1024), "0.5k");
    EXPECT_EQ(scale_label(1024, 1024), "1k");
    EXPECT_EQ(scale_label(1536, 2048), "1.5k");
}

TEST(ScaleLabels, QuartersOfHugeScalesDoNotOverflow) {
    EXPECT_EQ(quarter_value(UINT64_MAX, 4), UINT64_MAX);
    EXPECT_EQ(quarter_value(UINT64_MAX, 2), UINT64_MAX / 2);
    EXPECT_EQ(quarter_value(1000, 1), 250u);
    EXPECT_EQ(quarter_value(1000, 0), 0u);
    EXPECT_EQ(scale_label(UINT64_MAX, UINT64_MAX), "17592186044415M");
}
