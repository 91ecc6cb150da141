// SPDX-License-Identifier: MIT
// The pages of web/ assembled at build time (assemble_page.cmake), in the object as they are:
// the report's (report_page.h) and the two-run page's (diff_page.h).
#include <cstddef>

#include "diff_page.h"
#include "report_page.h"

// The assembled page FILE goes into the object by the assembler, between the symbols
// NAME_begin and NAME_end: no generated source, no copy at start-up. Read-only data, its
// symbols hidden from outside the program.
// clang-format off
#define MEMUSAGE_EMBED_PAGE(NAME, FILE)                                        \
    asm(".pushsection .rodata,\"a\"\n"                                         \
        ".balign 16\n"                                                         \
        ".global " #NAME "_begin\n"                                            \
        ".hidden " #NAME "_begin\n"                                            \
        #NAME "_begin:\n"                                                      \
        ".incbin \"" FILE "\"\n"                                               \
        ".global " #NAME "_end\n"                                              \
        ".hidden " #NAME "_end\n"                                              \
        #NAME "_end:\n"                                                        \
        ".popsection\n");                                                      \
    extern "C" const char NAME##_begin[] __attribute__((visibility("hidden"))); \
    extern "C" const char NAME##_end[] __attribute__((visibility("hidden")))
// clang-format on

MEMUSAGE_EMBED_PAGE(memusage_report_page, MEMUSAGE_REPORT_PAGE_FILE);
MEMUSAGE_EMBED_PAGE(memusage_diff_page, MEMUSAGE_DIFF_PAGE_FILE);

namespace memusage::report {
namespace {

std::string_view embedded(const char* begin, const char* end) {
    return {begin, static_cast<std::size_t>(end - begin)};
}

}  // namespace

std::string_view report_page_template() {
    return embedded(memusage_report_page_begin, memusage_report_page_end);
}

std::string_view diff_page_template() {
    return embedded(memusage_diff_page_begin, memusage_diff_page_end);
}

std::string_view report_data_placeholder() { return MEMUSAGE_REPORT_PAGE_PLACEHOLDER; }

}  // namespace memusage::report
