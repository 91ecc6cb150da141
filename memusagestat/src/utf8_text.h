// Titles come from the command line in whatever encoding the user's shell had; Cairo
// draws only valid UTF-8 and fails the whole picture otherwise.
#pragma once

#include <string>
#include <string_view>

namespace memusagestat {

// `text` with every byte that does not begin a valid UTF-8 sequence (overlong forms,
// surrogates and code points past U+10FFFF included) replaced by U+FFFD.
std::string with_valid_utf8(std::string_view text);

}  // namespace memusagestat
