// SPDX-License-Identifier: MIT
// The JSON a report page embeds (its `report-data` element, memusagestat/web/DATA.md), for the
// tests that check a page's figures against the text reports of the same run.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace test_support {

// The page at `path`'s data, or null when it has none.
inline nlohmann::json report_data(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::string html = text.str();
    const std::string open = "<script type=\"application/json\" id=\"report-data\">";
    const size_t at = html.find(open);
    if (at == std::string::npos) return {};
    const size_t begin = at + open.size();
    return nlohmann::json::parse(html.substr(begin, html.find("</script>", begin) - begin));
}

}  // namespace test_support
