// SPDX-License-Identifier: MIT
#include "sites_run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace sites_test {

std::string location(const std::string& source, const std::string& marker) {
    std::string path = std::string(FIXTURE_SOURCE_DIR) + "/" + source;
    std::ifstream in(path);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
        if (line.find("SITE(" + marker + ")") != std::string::npos)
            return path + ":" + std::to_string(number);
    ADD_FAILURE() << "no SITE(" << marker << ") in " << path;
    return path + ":?";
}

std::string library(const std::string& variant) {
    return collector_test::fixture("libsites_library_" + variant + ".so");
}

Outcome run_with_sites(const std::vector<std::string>& argv, const std::string& sites,
                       const std::vector<std::string>& extra) {
    std::vector<std::string> env = {"MEMUSAGE_SITES=" + sites};
    env.insert(env.end(), extra.begin(), extra.end());
    return collector_test::run(argv, env);
}

Outcome report_of(const std::string& sites, const std::vector<std::string>& options) {
    std::vector<std::string> argv = {collector_test::kOurMemusagestat, "--sites=" + sites};
    argv.insert(argv.end(), options.begin(), options.end());
    return collector_test::run(argv, {}, "");
}

Outcome run_memusage(const std::vector<std::string>& arguments, const std::string& tmpdir) {
    std::vector<std::string> argv = {kOurMemusage};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return collector_test::run(argv, {"TMPDIR=" + tmpdir}, "");
}

std::string Entry::text() const {
    std::string all = section + "\n" + header + "\n";
    for (const std::string& line : stack) all += line + "\n";
    for (const std::string& line : grown) all += line + "\n";
    return all;
}

std::vector<Entry> entries_of(const std::string& report) {
    std::vector<Entry> entries;
    std::istringstream lines(report);
    std::string line, section;
    while (std::getline(lines, line)) {
        std::string trimmed = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        if (line.starts_with("Bytes ") || line.starts_with("Temporary blocks (freed before the ")) {
            section = line;
        } else if (trimmed.starts_with("#") && !section.empty()) {
            entries.push_back(Entry{section, trimmed, {}, {}});
        } else if ((trimmed.starts_with("at ") || trimmed.starts_with("by ")) && !entries.empty()) {
            entries.back().stack.push_back(trimmed);
        } else if (trimmed.starts_with("grown at ") && !entries.empty()) {
            entries.back().grown.push_back(trimmed);
        } else if (line.empty() || line.starts_with("Note:")) {
            section = line.empty() ? section : std::string();
        }
    }
    return entries;
}

const Entry* find_entry(const std::vector<Entry>& entries, const std::string& section,
                        const std::string& frame) {
    for (const Entry& entry : entries) {
        if (!entry.section.starts_with(section)) continue;
        for (const std::string& line : entry.stack)
            if (line.find(frame) != std::string::npos) return &entry;
    }
    return nullptr;
}

}  // namespace sites_test
