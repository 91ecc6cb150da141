// SPDX-License-Identifier: MIT
// memusagestat --html=OUT --diff A B, the two-run page, against the text --diff of the same
// two runs (tests/browser/fixtures/two_runs.c run as "before" and as "after", their files
// kept by memusage --keep): the page's totals are the text's, and the rows of each of its
// four rankings, made from the page's sites as the text ranks them, are the text's rows, in
// order, with the same figures, the same new and gone, and the same innermost frame. Both
// runs' timelines are in the page, and bad input is one line and status 1, with no page.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::kOurMemusagestat;
using collector_test::Scratch;

// One listed site of the text --diff: "#RANK +CHANGE UNIT (BEFORE -> AFTER)[ new| gone]",
// then "at FRAME".
struct TextRow {
    int64_t change = 0;
    uint64_t before = 0, after = 0;
    bool is_new = false, gone = false;
    std::string at;
};

struct TextDiff {
    std::map<std::string, std::pair<uint64_t, uint64_t>> totals;  // by label
    std::map<std::string, std::vector<TextRow>> rankings;         // by title
};

TextDiff parse_text_diff(const std::string& text) {
    TextDiff diff;
    std::istringstream lines(text);
    std::string line, section;
    const std::regex total(R"(^  (\S.*?) +(\d+) +(\d+)   \S.*$)");
    const std::regex entry(R"(^ +#\d+ ([+-]\d+) \w+ \((\d+) -> (\d+)\)( new)?( gone)?$)");
    std::smatch m;
    while (std::getline(lines, line)) {
        if (line.starts_with("Change in ")) {
            // Without its " (top N of M)" and its colon.
            section = line.substr(0, std::min(line.find(" (top "), line.rfind(':')));
            diff.rankings[section];
        } else if (section.empty() && std::regex_match(line, m, total)) {
            diff.totals[m[1]] = {std::stoull(m[2]), std::stoull(m[3])};
        } else if (!section.empty() && std::regex_match(line, m, entry)) {
            diff.rankings[section].push_back({std::stoll(m[1]), std::stoull(m[2]),
                                              std::stoull(m[3]), m[4].matched, m[5].matched, ""});
        } else if (!section.empty() && line.starts_with("       at ")) {
            diff.rankings[section].back().at = line.substr(10);
        }
    }
    return diff;
}

class DiffPage : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const char* run : {"before", "after"}) {
            Outcome out =
                run_memusage({"--keep=" + (scratch_ / run), fixture("sites_fixture_two_runs"), run},
                             scratch_.path());
            ASSERT_TRUE(out.exited_zero()) << out.err;
        }
    }
    Outcome stat(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv = {kOurMemusagestat};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return collector_test::run(argv, {}, "");
    }

    Scratch scratch_;
    std::string before_ = scratch_ / "before/run.sites", after_ = scratch_ / "after/run.sites";
    std::string page_ = scratch_ / "diff.html";
};

// The page's rows of one measure as the text --diff ranks them: those that changed, the
// largest change first, ties in the page's order.
std::vector<TextRow> ranked(const nlohmann::json& data, const std::string& key) {
    std::vector<TextRow> rows;
    for (const nlohmann::json& site : data["sites"]) {
        const uint64_t a = site["a"][key], b = site["b"][key];
        if (a == b) continue;
        std::string at =
            site["stack"].empty() ? "" : data["frames"][site["stack"][0].get<size_t>()];
        if (!site["via"].get<std::string>().empty()) at += " via " + site["via"].get<std::string>();
        rows.push_back({static_cast<int64_t>(b) - static_cast<int64_t>(a), a, b,
                        !site["in_a"].get<bool>(), !site["in_b"].get<bool>(), at});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const TextRow& x, const TextRow& y) {
        return std::llabs(x.change) > std::llabs(y.change);
    });
    return rows;
}

TEST_F(DiffPage, EveryRowAndTotalIsTheTextDiffs) {
    Outcome text = stat({"--diff", before_, after_, "--top=100000"});
    ASSERT_TRUE(text.exited_zero()) << text.err;
    Outcome page = stat({"--html=" + page_, "--diff", before_, after_});
    ASSERT_TRUE(page.exited_zero()) << page.err;
    const nlohmann::json data = report_data(page_);
    ASSERT_FALSE(data.is_null());
    ASSERT_EQ(data["format"], "memusage-diff-report");
    const TextDiff expected = parse_text_diff(text.out);

    ASSERT_EQ(data["totals"].size(), expected.totals.size()) << text.out;
    for (const nlohmann::json& row : data["totals"]) {
        const auto found = expected.totals.find(row["label"]);
        ASSERT_NE(found, expected.totals.end()) << row.dump() << "\n" << text.out;
        EXPECT_EQ(row["a"], found->second.first) << row.dump();
        EXPECT_EQ(row["b"], found->second.second) << row.dump();
    }
    ASSERT_EQ(data["measures"].size(), 4u);
    size_t rows = 0;
    for (const nlohmann::json& measure : data["measures"]) {
        const auto listed = expected.rankings.find(measure["title"]);
        ASSERT_NE(listed, expected.rankings.end()) << measure.dump() << "\n" << text.out;
        const std::vector<TextRow> from_page = ranked(data, measure["key"]);
        ASSERT_EQ(from_page.size(), listed->second.size()) << measure["title"] << "\n" << text.out;
        for (size_t i = 0; i < from_page.size(); ++i) {
            const TextRow &p = from_page[i], &t = listed->second[i];
            EXPECT_EQ(p.change, t.change) << measure["title"] << " #" << i + 1;
            EXPECT_EQ(p.before, t.before) << measure["title"] << " #" << i + 1;
            EXPECT_EQ(p.after, t.after) << measure["title"] << " #" << i + 1;
            EXPECT_EQ(p.is_new, t.is_new) << measure["title"] << " #" << i + 1;
            EXPECT_EQ(p.gone, t.gone) << measure["title"] << " #" << i + 1;
            EXPECT_EQ(p.at, t.at) << measure["title"] << " #" << i + 1;
        }
        rows += from_page.size();
    }
    EXPECT_GE(rows, 4u) << text.out;
}

// The fixture's sites as the page holds them: one grown, one shrunk, one new, one gone, one
// unchanged (bytes at the peak); both runs' timelines, their peaks the totals'.
TEST_F(DiffPage, TheFixturesChangesAndBothTimelines) {
    Outcome page = stat({"--html=" + page_, "--diff", before_, after_});
    ASSERT_TRUE(page.exited_zero()) << page.err;
    const nlohmann::json data = report_data(page_);
    auto site = [&](const std::string& function) -> nlohmann::json {
        for (const nlohmann::json& s : data["sites"])
            if (!s["stack"].empty() &&
                data["frames"][s["stack"][0].get<size_t>()].get<std::string>().starts_with(
                    function + " ("))
                return s;
        return nullptr;
    };
    const std::string source = "two_runs.c";
    for (const char* name : {"kept", "table", "fresh", "retired", "steady", "scratch"})
        ASSERT_FALSE(site(name).is_null()) << name << "\n" << data["frames"].dump();
    EXPECT_EQ(site("kept")["a"]["peak"], 4000);
    EXPECT_EQ(site("kept")["b"]["peak"], 6000);
    EXPECT_LT(site("table")["b"]["allocated"], site("table")["a"]["allocated"]);
    EXPECT_FALSE(site("fresh")["in_a"].get<bool>());
    EXPECT_TRUE(site("fresh")["in_b"].get<bool>());
    EXPECT_TRUE(site("retired")["in_a"].get<bool>());
    EXPECT_FALSE(site("retired")["in_b"].get<bool>());
    EXPECT_EQ(site("steady")["a"], site("steady")["b"]);
    EXPECT_EQ(site("scratch")["a"]["calls"], 10);
    EXPECT_EQ(site("scratch")["b"]["calls"], 20);

    ASSERT_EQ(data["runs"].size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
        const nlohmann::json& run = data["runs"][k];
        ASSERT_TRUE(run["timeline"].is_object()) << run.dump();
        const auto& heap = run["timeline"]["heap"];
        ASSERT_FALSE(heap.empty());
        uint64_t top = 0;
        for (const auto& h : heap) top = std::max(top, h.get<uint64_t>());
        EXPECT_EQ(top, data["totals"][0][k == 0 ? "a" : "b"]) << "run " << run["label"];
        EXPECT_EQ(run["heap_peak"], top);
        EXPECT_GT(run["seconds"].get<double>(), 0.0);
    }
    EXPECT_EQ(data["time_unit"], "seconds") << "the kept summary files give the clock's rate";
}

TEST_F(DiffPage, DataFilesGiveTheTextsTotalsAndTimelines) {
    const std::string a = scratch_ / "before/run.dat", b = scratch_ / "after/run.dat";
    Outcome text = stat({"--diff", a, b});
    ASSERT_TRUE(text.exited_zero()) << text.err;
    Outcome page = stat({"--html=" + page_, "--diff", a, b});
    ASSERT_TRUE(page.exited_zero()) << page.err;
    const nlohmann::json data = report_data(page_);
    EXPECT_TRUE(data["sites"].is_null());
    const TextDiff expected = parse_text_diff(text.out);
    ASSERT_EQ(data["totals"].size(), expected.totals.size()) << text.out;
    for (const nlohmann::json& row : data["totals"]) {
        const auto found = expected.totals.find(row["label"]);
        ASSERT_NE(found, expected.totals.end()) << row.dump();
        EXPECT_EQ(row["a"], found->second.first);
        EXPECT_EQ(row["b"], found->second.second);
    }
    EXPECT_TRUE(data["runs"][0]["timeline"].is_object());
    EXPECT_TRUE(data["runs"][1]["timeline"].is_object());
}

TEST_F(DiffPage, BadInputIsOneLineAndStatusOneWithNoPage) {
    const std::string missing = scratch_ / "missing.sites";
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"--html=" + page_, "--diff", before_},
          {"--html=" + page_, "--diff", before_, missing},
          {"--html=" + page_, "--diff", missing, after_},
          // A file of the wrong kind: a sites file against a data file, a program, a page.
          {"--html=" + page_, "--diff", before_, scratch_ / "after/run.dat"},
          {"--html=" + page_, "--diff", fixture("sites_fixture_two_runs"), after_},
          {"--html=" + page_, "--diff", fixture("sites_fixture_two_runs"),
           fixture("sites_fixture_two_runs")},
          {"--html=" + page_, "--diff", scratch_ / "before/run.events",
           scratch_ / "after/run.events"},
          {"--html=" + page_, "--diff", before_, after_, "--fail-if-grown=10%"},
          {"--html=" + page_, "--diff", before_, after_, "--sites=" + before_}}) {
        Outcome out = stat(argv);
        std::string shown;
        for (const std::string& arg : argv) shown += arg + " ";
        EXPECT_EQ(out.signal(), 0) << shown;
        EXPECT_EQ(WEXITSTATUS(out.status), 1) << shown << "\n" << out.err;
        EXPECT_TRUE(out.err.starts_with("memusagestat: ")) << shown << "\n" << out.err;
        // One line; a command line refused says where to find help on a second.
        const size_t end = out.err.find('\n');
        EXPECT_TRUE(end + 1 == out.err.size() || out.err.substr(end + 1).starts_with("Try "))
            << shown << "\n"
            << out.err;
        EXPECT_FALSE(std::filesystem::exists(page_)) << shown;
        std::filesystem::remove(page_);
    }
}

}  // namespace
}  // namespace sites_test
