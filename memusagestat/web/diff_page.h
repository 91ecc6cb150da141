// SPDX-License-Identifier: MIT
// The two-run page (memusagestat --html=OUT --diff A B), assembled at build time like the
// report's (assemble_page.cmake) and embedded with it (embedded_pages.cpp): diff_page.html
// with its style, the libraries and its scripts inline, and the report's one placeholder
// (report_page.h) where the page's data goes.
#pragma once

#include <string_view>

namespace memusage::report {

// The page, whole: the placeholder occurs exactly once.
std::string_view diff_page_template();

}  // namespace memusage::report
