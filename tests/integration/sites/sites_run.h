// SPDX-License-Identifier: MIT
// Helpers of the allocation-sites tests: the fixtures' marked lines, runs with
// MEMUSAGE_SITES, and the report read back as sections and entries.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collector_run.h"
#include "support/report_data.h"

namespace sites_test {

using collector_test::Outcome;

inline const std::string kOurMemusage = OUR_MEMUSAGE;

// "PATH:LINE" of the line marked SITE(marker) in a fixture's source, as the report prints it.
std::string location(const std::string& source, const std::string& marker);

// The dlopen'ed library of a fixture variant ("debug", "nodebug").
std::string library(const std::string& variant);

// Runs argv with the collector and MEMUSAGE_SITES=sites (plus extra environment).
Outcome run_with_sites(const std::vector<std::string>& argv, const std::string& sites,
                       const std::vector<std::string>& extra = {});

// memusagestat --sites=FILE, with more options if given.
Outcome report_of(const std::string& sites, const std::vector<std::string>& options = {});

// The driver (memusage) with these arguments, its private files in the scratch directory.
Outcome run_memusage(const std::vector<std::string>& arguments, const std::string& tmpdir);

// One ranked site of the report.
struct Entry {
    std::string section;             // the ranking's title line
    std::string header;              // "#1 1000 bytes in 1 block"
    std::vector<std::string> stack;  // "at ..." then "by ..." lines, trimmed
    std::vector<std::string> grown;  // "grown at ..." lines after the stack, trimmed
    std::string text() const;        // all of it, for failure messages
};
std::vector<Entry> entries_of(const std::string& report);

// The first entry of the ranking whose title starts with `section` that has a stack line
// containing `frame`; null if none.
const Entry* find_entry(const std::vector<Entry>& entries, const std::string& section,
                        const std::string& frame);

// The data an HTML report embeds (support/report_data.h).
using test_support::report_data;

inline const std::string kPeakRanking = "Bytes held at the heap peak";
inline const std::string kLeakRanking = "Bytes still allocated at exit";
inline const std::string kAllocatedRanking = "Bytes allocated";

}  // namespace sites_test
