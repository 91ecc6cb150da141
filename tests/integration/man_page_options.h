// The options a man page lists: the tags of the paragraphs of its OPTIONS section (each
// `.TP` line's next line), read back from roff, for the tests that hold the man pages, the
// --help texts and the programs' option tables to one another.
#pragma once

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

}  // namespace man_page
