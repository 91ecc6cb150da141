// SPDX-License-Identifier: MIT
#include "report_page.h"

// The assembled page goes into the object as it is, by the assembler: no generated source, no
// copy at start-up. Read-only data, its symbols hidden from outside the program.
asm(".pushsection .rodata,\"a\"\n"
    ".balign 16\n"
    ".global memusage_report_page_begin\n"
    ".hidden memusage_report_page_begin\n"
    "memusage_report_page_begin:\n"
    ".incbin \"" MEMUSAGE_REPORT_PAGE_FILE
    "\"\n"
    ".global memusage_report_page_end\n"
    ".hidden memusage_report_page_end\n"
    "memusage_report_page_end:\n"
    ".popsection\n");

extern "C" {
extern const char memusage_report_page_begin[] __attribute__((visibility("hidden")));
extern const char memusage_report_page_end[] __attribute__((visibility("hidden")));
}

namespace memusage::report {

std::string_view report_page_template() {
    return {memusage_report_page_begin,
            static_cast<std::size_t>(memusage_report_page_end - memusage_report_page_begin)};
}

std::string_view report_data_placeholder() { return MEMUSAGE_REPORT_PAGE_PLACEHOLDER; }

}  // namespace memusage::report
