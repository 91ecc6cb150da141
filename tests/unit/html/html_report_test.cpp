// SPDX-License-Identifier: MIT
#include "html/html_report.h"

#include <gtest/gtest.h>

#include "page_files.h"
#include "report_page.h"

namespace memusagestat {
namespace {

TEST(HtmlReport, ThePageHoldsExactlyOneJsonObjectThatParses) {
    const nlohmann::json data = {{"format", "memusage-report"}, {"version", 1}};
    const std::string html = report_html(data);
    EXPECT_EQ(report_test::json_of_page(html), data);
    EXPECT_EQ(html.find(memusage::report::report_data_placeholder()), std::string::npos);
    // The rest of the page is the template's.
    const std::string_view page = memusage::report::report_page_template();
    const size_t at = page.find(memusage::report::report_data_placeholder());
    EXPECT_EQ(html.substr(0, at), page.substr(0, at));
    EXPECT_TRUE(
        html.ends_with(page.substr(at + memusage::report::report_data_placeholder().size())));
}

TEST(HtmlReport, EveryLessThanIsEscapedSoNoNameEndsTheElement) {
    const nlohmann::json data = {{"run", {{"program", "</script><script>alert(1)</script>"}}},
                                 {"frames", {{{"function", "operator<<"}}}}};
    const std::string html = report_html(data);
    const std::string open = "id=\"report-data\">";
    const size_t begin = html.find(open) + open.size();
    const size_t end = html.find("</script>", begin);
    const std::string json = html.substr(begin, end - begin);
    EXPECT_EQ(json.find('<'), std::string::npos);
    EXPECT_NE(json.find("\\u003c/script>"), std::string::npos);
    EXPECT_EQ(report_test::json_of_page(html), data);
}

TEST(HtmlReport, NamesThatAreNotUtf8AreReplacedNotRefused) {
    const nlohmann::json data = {{"name", std::string("bad \xff byte")}};
    EXPECT_NO_THROW(report_html(data));
}

TEST(HtmlReport, WritesTheFileOrSaysWhyNot) {
    report_test::Scratch scratch;
    ASSERT_TRUE(report_test::churn_recording(100).write(scratch / "run.events"));
    HtmlReportRequest request;
    request.events_path = scratch / "run.events";
    std::vector<std::string> warnings;
    ASSERT_EQ(write_html_report(request, scratch / "report.html", warnings).error(), "");
    const nlohmann::json data =
        report_test::json_of_page(report_test::read_text(scratch / "report.html"));
    EXPECT_EQ(data["format"], "memusage-report");
    EXPECT_EQ(data["events"]["total"], 100);
    EXPECT_NE(write_html_report(request, scratch / "no-such-dir/report.html", warnings)
                  .error()
                  .find("cannot write"),
              std::string::npos);
}

}  // namespace
}  // namespace memusagestat
