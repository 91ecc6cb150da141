// SPDX-License-Identifier: MIT
#include "live/printable_text.h"

#include <langinfo.h>
#include <locale.h>

#include <cstdint>
#include <cstring>

namespace memusage::live {
namespace {

void escape(std::string& out, unsigned char byte) {
    static const char kDigits[] = "0123456789abcdef";
    out += "\\x";
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0xF];
}

// The length of the well-formed UTF-8 character at text[at] (2 to 4 bytes, no overlong
// form, no surrogate, none above U+10FFFF), its code point in `code`; 0 if there is none.
size_t utf8_length(std::string_view text, size_t at, uint32_t& code) {
    auto byte = [&](size_t i) { return static_cast<unsigned char>(text[at + i]); };
    unsigned char lead = byte(0);
    size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (length == 0 || lead > 0xF4 || at + length > text.size()) return 0;
    code = lead & (0x7F >> length);
    for (size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (byte(i) & 0x3F);
    }
    static const uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kLeast[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    return length;
}

}  // namespace

std::string printable(std::string_view text, bool utf8) {
    std::string out;
    out.reserve(text.size());
    for (size_t at = 0; at < text.size();) {
        auto byte = static_cast<unsigned char>(text[at]);
        if (byte >= 0x20 && byte < 0x7F) {
            out += static_cast<char>(byte);
            ++at;
            continue;
        }
        uint32_t code = 0;
        size_t length = utf8 && byte >= 0x80 ? utf8_length(text, at, code) : 0;
        if (length != 0 && code >= 0xA0) {
            out.append(text.substr(at, length));
            at += length;
            continue;
        }
        // A C1 control written in UTF-8 is escaped byte by byte, as any other.
        size_t bytes = length != 0 ? length : 1;
        for (size_t i = 0; i < bytes; ++i) escape(out, static_cast<unsigned char>(text[at + i]));
        at += bytes;
    }
    return out;
}

bool locale_is_utf8() {
    locale_t locale = newlocale(LC_CTYPE_MASK, "", static_cast<locale_t>(0));
    if (locale == static_cast<locale_t>(0)) return false;
    const char* codeset = nl_langinfo_l(CODESET, locale);
    bool utf8 = codeset != nullptr && std::strcmp(codeset, "UTF-8") == 0;
    freelocale(locale);
    return utf8;
}

}  // namespace memusage::live
