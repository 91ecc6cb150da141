// SPDX-License-Identifier: MIT
// One run writes every output, and each quantity is the same figure in all of them, as the
// one place that defines it (memusagestat/src/sites/definitions.h) says: the summary and the
// HTML report's; the bytes held at the heap peak in --sites, pprof's inuse_space, massif's
// peak snapshot, the folded stacks and the HTML report's sites; the leaks of --leaks, pprof's
// leaked_space, DHAT's bytes at exit, --diff against a run that allocates nothing and the
// HTML report's sites; the temporary blocks of --sites and pprof's temporary_*. On the
// example README profiles, a small C++ program, sqlite3 and python3.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "go_pprof.h"
#include "sites_run.h"

namespace sites_test {
namespace {

using collector_test::fixture;
using collector_test::kOurMemusagestat;
using collector_test::Outcome;
using collector_test::Scratch;

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The first number of the first match of `pattern` (one group) in text; -1 when none.
int64_t matched(const std::string& text, const std::string& pattern) {
    std::smatch found;
    if (!std::regex_search(text, found, std::regex(pattern))) return -1;
    return std::stoll(found[1]);
}

// The sum of the first figure of a ranking's entries ("#3 4096 bytes ...").
uint64_t ranking_sum(const std::vector<Entry>& entries, const std::string& ranking) {
    uint64_t sum = 0;
    for (const Entry& entry : entries)
        if (entry.section.starts_with(ranking))
            sum += std::stoull(entry.header.substr(entry.header.find(' ') + 1));
    return sum;
}

// pprof's total of one sample type, in bytes or a count.
int64_t pprof_total(const std::string& profile, const std::string& type, const Scratch& scratch) {
    Outcome top = go_pprof({"-top", "-unit=B", "-sample_index=" + type}, profile, scratch.path());
    EXPECT_TRUE(top.exited_zero()) << top.err;
    std::string total = top_total(top.out);
    if (total.ends_with("B")) total.pop_back();
    return total.empty() ? -1 : std::stoll(total);
}

// The heap the sites account for in massif's peak snapshot: its tree's first level, less
// the bytes no site accounts for.
int64_t massif_peak_sites(const std::string& path) {
    std::istringstream in(file_text(path));
    bool in_peak = false;
    int64_t sum = 0;
    std::regex first_level("^ n[0-9]+: ([0-9]+) (.*)$");
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("heap_tree=")) in_peak = line == "heap_tree=peak";
        std::smatch parts;
        if (in_peak && std::regex_match(line, parts, first_level) &&
            parts[2].str().find("(bytes no allocation site accounts for)") == std::string::npos)
            sum += std::stoll(parts[1]);
    }
    return sum;
}

int64_t folded_sum(const std::string& path) {
    std::istringstream in(file_text(path));
    int64_t sum = 0;
    for (std::string line; std::getline(in, line);)
        if (size_t space = line.rfind(' '); space != std::string::npos)
            sum += std::stoll(line.substr(space + 1));
    return sum;
}

struct Dhat {
    int64_t bytes_at_exit = 0, blocks_at_exit = 0;
};
Dhat dhat_at_exit(const std::string& path) {
    Dhat dhat;
    const nlohmann::json document = nlohmann::json::parse(file_text(path));
    for (const auto& point : document["pps"]) {
        dhat.bytes_at_exit += point["eb"].get<int64_t>();
        dhat.blocks_at_exit += point["ebk"].get<int64_t>();
    }
    return dhat;
}

void every_output_agrees(const std::vector<std::string>& program) {
    Scratch scratch;
    const std::string sites = scratch / "run.sites", pprof = scratch / "run.pb.gz",
                      massif = scratch / "massif.out", folded = scratch / "run.folded",
                      dhat = scratch / "dhat.json", html = scratch / "report.html",
                      empty = scratch / "empty.sites";
    std::vector<std::string> argv = {
        "--color=never",         "--sites=1000000",  "--leaks",
        "--sites-file=" + sites, "--pprof=" + pprof, "--massif=" + massif,
        "--folded=" + folded,    "--dhat=" + dhat,   "--html=" + html};
    argv.insert(argv.end(), program.begin(), program.end());
    Outcome run = run_memusage(argv, scratch.path());
    ASSERT_TRUE(run.exited_zero()) << run.err;
    const std::string& text = run.err;
    const nlohmann::json data = report_data(html);
    ASSERT_TRUE(data.is_object()) << text;

    // The summary.
    const collector_test::Summary printed = collector_test::parse_summary(text);
    EXPECT_EQ(data["summary"]["heap_total"], printed.heap_total);
    EXPECT_EQ(data["summary"]["heap_peak"], printed.heap_peak);
    EXPECT_EQ(data["summary"]["stack_peak"], printed.stack_peak);

    // Bytes held at the heap peak.
    const std::vector<Entry> entries = entries_of(text);
    const uint64_t peak = ranking_sum(entries, "Bytes held at the heap peak");
    EXPECT_GT(peak, 0u) << text;
    uint64_t html_peak = 0, html_leaked = 0, html_leaked_blocks = 0;
    for (const auto& site : data["sites"]) {
        html_peak += site["peak"].get<uint64_t>();
        html_leaked += site["leaked"].get<uint64_t>();
        html_leaked_blocks += site["leaked_blocks"].get<uint64_t>();
    }
    EXPECT_EQ(pprof_total(pprof, "inuse_space", scratch), static_cast<int64_t>(peak));
    EXPECT_EQ(massif_peak_sites(massif), static_cast<int64_t>(peak));
    EXPECT_EQ(folded_sum(folded), static_cast<int64_t>(peak));
    EXPECT_EQ(html_peak, peak);

    // Leaks: the program's own, the runtimes' blocks apart.
    int64_t leaked = 0, leaked_blocks = 0;
    if (text.find("\nNo leaks: ") == std::string::npos) {
        leaked = matched(text, "\nLeaks: ([0-9]+) bytes? in ");
        leaked_blocks = matched(text, "\nLeaks: [0-9]+ bytes? in ([0-9]+) blocks? never freed");
        ASSERT_GT(leaked, 0) << text;
    }
    EXPECT_EQ(pprof_total(pprof, "leaked_space", scratch), leaked);
    const Dhat at_exit = dhat_at_exit(dhat);
    EXPECT_EQ(at_exit.bytes_at_exit, leaked);
    EXPECT_EQ(at_exit.blocks_at_exit, leaked_blocks);
    EXPECT_EQ(static_cast<int64_t>(html_leaked), leaked);
    EXPECT_EQ(static_cast<int64_t>(html_leaked_blocks), leaked_blocks);
    ASSERT_TRUE(run_with_sites({fixture("sites_fixture_empty")}, empty).exited_zero());
    Outcome diff = collector_test::run({kOurMemusagestat, "--diff", empty, sites}, {}, "");
    ASSERT_TRUE(diff.exited_zero()) << diff.err;
    EXPECT_EQ(matched(diff.out, "\n  bytes leaked +0 +([0-9]+) "), leaked) << diff.out;
    EXPECT_EQ(matched(diff.out, "\n  blocks leaked +0 +([0-9]+) "), leaked_blocks) << diff.out;
    // What the runtimes keep is listed apart in each, and is the same there too.
    int64_t kept = 0;
    if (text.find("\nNot counted: ") != std::string::npos)
        kept = matched(text, "\nNot counted: ([0-9]+) bytes? in ");
    EXPECT_EQ(pprof_total(pprof, "kept_space", scratch), kept);
    EXPECT_EQ(matched(diff.out, "\n  kept by the runtimes +0 +([0-9]+) "), kept) << diff.out;

    // Temporary blocks.
    const int64_t temporary_blocks =
        matched(text,
                "\nTemporary blocks \\(freed before their thread's next allocation\\): "
                "([0-9]+) of ");
    const int64_t temporary_bytes =
        matched(text,
                "\nTemporary blocks \\(freed before their thread's next allocation\\): [0-9]+ of "
                "[0-9]+ \\([0-9.]+%\\), ([0-9]+) bytes?\n");
    // The line is left out when there are none.
    EXPECT_EQ(pprof_total(pprof, "temporary_objects", scratch),
              std::max<int64_t>(temporary_blocks, 0));
    EXPECT_EQ(pprof_total(pprof, "temporary_space", scratch),
              std::max<int64_t>(temporary_bytes, 0));
}

TEST(CrossOutput, TheExampleProgram) { every_output_agrees({EXAMPLE_PROGRAM}); }

// Its leaks: the array never deleted, the stream never closed (its FILE and buffer).
TEST(CrossOutput, ACxxProgram) {
    Scratch scratch;
    every_output_agrees({fixture("sites_fixture_cross_outputs"), scratch / "log.txt"});
}

// sqlite3 builds, indexes, updates and queries a table in memory: its page cache and
// statements' blocks grow by realloc, its leaks at exit are the runtime's and its own.
TEST(CrossOutput, Sqlite3) {
    every_output_agrees(
        {"/usr/bin/sqlite3", ":memory:",
         "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, value REAL);"
         "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)"
         " INSERT INTO t SELECT x, 'name' || x, x * 1.5 FROM c;"
         "CREATE INDEX t_name ON t(name);"
         "SELECT count(*), sum(value) FROM t WHERE name LIKE 'name1%';"
         "UPDATE t SET name = name || '-x' WHERE id % 3 = 0;"
         "DELETE FROM t WHERE id % 5 = 0;"
         "SELECT count(*) FROM t;"});
}

TEST(CrossOutput, Python) {
    every_output_agrees({"/usr/bin/python3", "-c",
                         "import json\nrows = [{'n': i, 's': str(i) * 3} for i in range(20000)]\n"
                         "print(len(json.dumps(rows)))\n"});
}

}  // namespace
}  // namespace sites_test
