// SPDX-License-Identifier: MIT
// The options a man page lists: the tags of the paragraphs of its OPTIONS section (each
// `.TP` line's next line), read back from roff, for the tests that hold the man pages, the
// --help texts and the programs' option tables to one another.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace man_page {

struct Options {
    std::set<std::string> long_names;  // without "--"
    std::set<char> short_names;
};

// The tag line as it reads: "\-" is "-", font changes are nothing.
inline std::string plain(std::string line) {
    line = std::regex_replace(line, std::regex(R"(\\f[BIRP])"), "");
    return std::regex_replace(line, std::regex(R"(\\-)"), "-");
}

inline Options listed_options(const std::string& path) {
    Options options;
    std::ifstream in(path);
    std::string line;
    bool in_options = false, tag_next = false;
    const std::regex long_option(R"(--([a-z][a-z0-9-]*))");
    const std::regex short_option(R"((^|[ "])-([A-Za-z?])(?=[ ",]|$))");
    while (std::getline(in, line)) {
        if (line.starts_with(".SH")) in_options = line == ".SH OPTIONS";
        if (!in_options) continue;
        if (line == ".TP") {
            tag_next = true;
            continue;
        }
        if (!tag_next) continue;
        tag_next = false;
        const std::string tag = plain(line);
        for (std::sregex_iterator it(tag.begin(), tag.end(), long_option), end; it != end; ++it)
            options.long_names.insert((*it)[1]);
        for (std::sregex_iterator it(tag.begin(), tag.end(), short_option), end; it != end; ++it)
            options.short_names.insert((*it)[2].str()[0]);
    }
    return options;
}

// Every option of a program's table (rows with `name` and `short_name`) is in `listed`, and
// `listed` holds no option the table lacks.
template <typename Table>
void expect_lists_exactly(const Options& listed, const Table& table) {
    std::set<std::string> names;
    std::set<char> shorts;
    for (const auto& option : table) {
        names.insert(std::string(option.name));
        EXPECT_TRUE(listed.long_names.contains(std::string(option.name))) << option.name;
        if (option.short_name) {
            shorts.insert(option.short_name);
            EXPECT_TRUE(listed.short_names.contains(option.short_name)) << option.short_name;
        }
    }
    for (const std::string& name : listed.long_names)
        EXPECT_TRUE(names.contains(name)) << "the man page lists --" << name;
    for (char name : listed.short_names)
        EXPECT_TRUE(shorts.contains(name)) << "the man page lists -" << name;
}

}  // namespace man_page
