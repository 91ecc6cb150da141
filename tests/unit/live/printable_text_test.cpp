// SPDX-License-Identifier: MIT
// Names from another process reach the terminal with no control character in them.
#include "live/printable_text.h"

#include <gtest/gtest.h>

#include <vector>

#include "live/live_figures_file.h"
#include "live/process_table.h"

namespace {

using memusage::live::printable;

TEST(PrintableText, ControlCharactersAreEscaped) {
    EXPECT_EQ(printable("plain name-1.2_x", true), "plain name-1.2_x");
    EXPECT_EQ(printable("\x1b]2;owned\x07\x1b[2J", true), "\\x1b]2;owned\\x07\\x1b[2J");
    EXPECT_EQ(printable(std::string("a\0b\n\r\t\x7f", 7), true), "a\\x00b\\x0a\\x0d\\x09\\x7f");
}

TEST(PrintableText, UnicodeStaysInAUtf8LocaleButNotItsControls) {
    EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x96\x81", true), "caf\xc3\xa9 \xe2\x96\x81");
    // U+009B, the 8-bit CSI, in UTF-8; a lone 0x9B; a cut sequence; an overlong '/'.
    EXPECT_EQ(printable("\xc2\x9b"
                        "2J",
                        true),
              "\\xc2\\x9b2J");
    EXPECT_EQ(printable("\x9b"
                        "2J",
                        true),
              "\\x9b2J");
    EXPECT_EQ(printable("\xe2\x96", true), "\\xe2\\x96");
    EXPECT_EQ(printable("\xc0\xaf", true), "\\xc0\\xaf");
    // A terminal of 8-bit characters reads 0x9B in "é" of another encoding as CSI.
    EXPECT_EQ(printable("caf\xc3\xa9", false), "caf\\xc3\\xa9");
}

TEST(PrintableText, TheProcessTableEscapesTheProgramsName) {
    memusage::live::RunningProcess process{42, "evil\x1b[2J\x07", 0, {}};
    std::string table = memusage::live::process_table({process}, 0);
    EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
    EXPECT_EQ(table.find('\x07'), std::string::npos) << table;
    EXPECT_NE(table.find("evil\\x1b[2J\\x07"), std::string::npos) << table;
}

}  // namespace
