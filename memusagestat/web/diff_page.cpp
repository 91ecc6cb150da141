// SPDX-License-Identifier: MIT
#include "diff_page.h"

// As report_page.cpp: the assembled page in the object by the assembler, read-only, hidden.
asm(".pushsection .rodata,\"a\"\n"
    ".balign 16\n"
    ".global memusage_diff_page_begin\n"
    ".hidden memusage_diff_page_begin\n"
    "memusage_diff_page_begin:\n"
    ".incbin \"" MEMUSAGE_DIFF_PAGE_FILE
    "\"\n"
    ".global memusage_diff_page_end\n"
    ".hidden memusage_diff_page_end\n"
    "memusage_diff_page_end:\n"
    ".popsection\n");

extern "C" {
extern const char memusage_diff_page_begin[] __attribute__((visibility("hidden")));
extern const char memusage_diff_page_end[] __attribute__((visibility("hidden")));
}

namespace memusage::report {

std::string_view diff_page_template() {
    return {memusage_diff_page_begin,
            static_cast<std::size_t>(memusage_diff_page_end - memusage_diff_page_begin)};
}

}  // namespace memusage::report
