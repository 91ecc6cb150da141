// SPDX-License-Identifier: MIT
// The HTML report's page, assembled at build time (assemble_page.cmake) and embedded in the
// program (embedded_pages.cpp): report.html with its style, the libraries and its scripts
// inline, and one placeholder where the report's data goes.
#pragma once

#include <string_view>

namespace memusage::report {

// The page, whole: the placeholder occurs exactly once, as the text of
// <script type="application/json" id="report-data">.
std::string_view report_page_template();

// What the writer replaces with the report's JSON (web/DATA.md), in which every "<" must be
// written "\u003c" so that no "</script" in a name ends the element early.
std::string_view report_data_placeholder();

}  // namespace memusage::report
