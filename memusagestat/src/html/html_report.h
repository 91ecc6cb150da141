// SPDX-License-Identifier: MIT
// memusagestat --html and memusage --html: the one HTML file of a run, the page
// (web/report_page.h) with the report's data (page_data.h) in it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "html/page_data.h"
#include "memusage/status.h"

namespace memusagestat {

// The page with `data` in its place: JSON in which every "<" is written "\u003c", so that
// no text of the run ("</script>" in a name) can end the element that holds it.
std::string report_html(const nlohmann::json& data);
// The same with any page of web/ (the report's, the two-run page's: diff_page.h): both
// hold the one placeholder (report_page.h) where the data goes.
std::string page_with_data(std::string_view page, const nlohmann::json& data);

// Builds the report of the request's files and writes it to `out_path`. Failing, a message
// for the user; `warnings` as build_report_data's.
memusage::Status write_html_report(const HtmlReportRequest& request, const std::string& out_path,
                                   std::vector<std::string>& warnings,
                                   const ReportBounds& bounds = {});

}  // namespace memusagestat
