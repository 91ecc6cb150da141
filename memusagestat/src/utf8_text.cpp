#include "utf8_text.h"

#include <cstdint>

namespace memusagestat {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid sequence starting at text[i], or 0.
std::size_t valid_sequence_length(std::string_view text, std::size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) return 1;
    std::size_t length;
    uint32_t code;
    if ((lead >> 5) == 0x6) {
        length = 2, code = lead & 0x1F;
    } else if ((lead >> 4) == 0xE) {
        length = 3, code = lead & 0x0F;
    } else if ((lead >> 3) == 0x1E) {
        length = 4, code = lead & 0x07;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0) != 0x80) return 0;
        code = (code << 6) | (next & 0x3F);
    }
    constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    return length;
}

}  // namespace

std::string with_valid_utf8(std::string_view text) {
    std::string result;
    result.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = valid_sequence_length(text, i);
        if (length == 0) {
            result += kReplacement;
            ++i;
        } else {
            result += text.substr(i, length);
            i += length;
        }
    }
    return result;
}

}  // namespace memusagestat
