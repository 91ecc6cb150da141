// SPDX-License-Identifier: MIT
// Text that came from another process (a program's name in its live-figures file, a
// thread's name, a symbol's) made safe to put on a terminal: whatever its bytes, none
// reaches the terminal as a control character, so no name can move the cursor, retitle
// the window, or type into it.
#pragma once

#include <string>
#include <string_view>

namespace memusage::live {

// `text` with every control character (C0, DEL, and the C1 ones, U+0080..U+009F)
// written as \xNN. With `utf8` (the terminal takes UTF-8), well-formed UTF-8 characters
// stay as they are and any other byte above 0x7F is escaped; without it every byte above
// 0x7F is escaped, since a terminal of 8-bit characters reads 0x9B as a control.
std::string printable(std::string_view text, bool utf8);

// The locale's character set (LC_ALL, LC_CTYPE, LANG) is UTF-8; the process's own
// locale is left as it is.
bool locale_is_utf8();

}  // namespace memusage::live
