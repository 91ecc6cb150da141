// SPDX-License-Identifier: MIT
#include "draw/lettering.h"

#include <gtest/gtest.h>

using memusagestat::with_valid_utf8;

TEST(Utf8Text, ValidTextIsKept) {
    EXPECT_EQ(with_valid_utf8("plain"), "plain");
    EXPECT_EQ(with_valid_utf8("Gr\xC3\xBC\xC3\x9F"
                              "e \xE6\x97\xA5 \xF0\x9F\x98\x80"),
              "Gr\xC3\xBC\xC3\x9F"
              "e \xE6\x97\xA5 \xF0\x9F\x98\x80");
    EXPECT_EQ(with_valid_utf8(""), "");
}

TEST(Utf8Text, InvalidBytesBecomeReplacementCharacters) {
    EXPECT_EQ(with_valid_utf8("a\xFF"
                              "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(with_valid_utf8("\xC3"), "\xEF\xBF\xBD");                  // cut short
    EXPECT_EQ(with_valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
    EXPECT_EQ(with_valid_utf8("\xED\xA0\x80"),
              "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");                            // a surrogate
    EXPECT_EQ(with_valid_utf8("\xF4\x90\x80\x80").substr(0, 3), "\xEF\xBF\xBD");  // > U+10FFFF
}
