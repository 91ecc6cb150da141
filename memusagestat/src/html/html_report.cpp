// SPDX-License-Identifier: MIT
#include "html/html_report.h"

#include "output/whole_file.h"
#include "report_page.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

std::string report_html(const nlohmann::json& data) {
    return page_with_data(memusage::report::report_page_template(), data);
}

std::string page_with_data(std::string_view page, const nlohmann::json& data) {
    const std::string_view placeholder = memusage::report::report_data_placeholder();
    // Names from the run's files are not always valid UTF-8: replaced, never refused.
    const std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const size_t at = page.find(placeholder);
    std::string html;
    html.reserve(page.size() + json.size() + json.size() / 64);
    html.append(page.substr(0, at));
    for (char c : json) {
        if (c == '<')
            html += "\\u003c";
        else
            html += c;
    }
    html.append(page.substr(at + placeholder.size()));
    return html;
}

Status write_html_report(const HtmlReportRequest& request, const std::string& out_path,
                         std::vector<std::string>& warnings, const ReportBounds& bounds) {
    nlohmann::json data;
    if (Status built = build_report_data(request, bounds, data, warnings); !built.ok())
        return built;
    return write_whole_file(out_path, report_html(data));
}

}  // namespace memusagestat
