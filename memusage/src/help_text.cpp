// SPDX-License-Identifier: MIT
#include "help_text.h"

#include <string>

#include "commit_id.h"  // generated at every build: MEMUSAGE_COMMIT
#include "options.h"

#ifndef MEMUSAGE_VERSION
#define MEMUSAGE_VERSION "unknown"
#endif

namespace memusage {

namespace {

// Where each option's help begins.
constexpr size_t kHelpColumn = 26;

std::string help_lines(const DriverOption& option) {
    std::string text = option.short_name ? std::string("   -") + option.short_name + "," : "      ";
    text += "--" + std::string(option.name) + std::string(option.shown);
    text += text.size() < kHelpColumn ? std::string(kHelpColumn - text.size(), ' ') : "  ";
    for (char c : option.help) {
        text += c;
        if (c == '\n') text += std::string(kHelpColumn, ' ');
    }
    return text + "\n";
}

}  // namespace

// The options' lines come from their table (options.cpp), in its order.
std::string_view help_text() {
    static const std::string text = [] {
        std::string lines =
            "Usage: memusage [OPTION]... PROGRAM [PROGRAMOPTION]...\n"
            "Run PROGRAM and report how it used memory.\n"
            "\n";
        for (const DriverOption& option : driver_options())
            lines += std::string(option.heading) + help_lines(option);
        return lines +
               "\n"
               "Arguments required by long options are required by the short forms too.\n"
               "Options end at PROGRAM or at '--'; everything after belongs to PROGRAM.\n"
               "\n"
               "Exit status: PROGRAM's; 128+N when it died of signal N; 127 when it could\n"
               "not be run; 1 for a bad command line; N of --leak-exitcode=N when it\n"
               "exited leaving leaks.\n";
    }();
    return text;
}

std::string_view usage_text() {
    return "Usage: memusage [--data=FILE] [--progname=NAME] [--png=FILE] [--unbuffered]\n"
           "\t    [--buffer=SIZE] [--no-timer] [--mmap] [--color=WHEN] [--threads]\n"
           "\t    [--sites[=N]] [--stack-peak[=N]] [--sites-sample[=BYTES]]\n"
           "\t    [--sites-file=FILE]\n"
           "\t    [--events=FILE] [--leaks] [--leak-exitcode=N] [--folded=FILE]\n"
           "\t    [--folded-metric=M] [--dhat=FILE] [--pprof=FILE]\n"
           "\t    [--massif=FILE]\n"
           "\t    [--long-lived=DURATION] [--html=FILE] [--keep=DIR]\n"
           "\t    [--source-dir=DIR]\n"
           "\t    [--limit=SIZE]\n"
           "\t    [--fail-at=N] [--fail-from=N] [--fail-probability=P]\n"
           "\t    [--fail-seed=S] [--time-based]\n"
           "\t    [--total] [--title=STRING] [--x-size=SIZE] [--y-size=SIZE]\n"
           "\t    [--live] PROGRAM [PROGRAMOPTION]...\n"
           "       memusage --ps\n"
           "       memusage --watch=PID\n";
}

std::string_view version_text() {
    return "memusage (memusage) " MEMUSAGE_VERSION " (commit " MEMUSAGE_COMMIT
           ")\n"
           "A reimplementation of the GNU C Library's memusage, under the MIT licence.\n"
           "There is NO warranty, to the extent permitted by law.\n";
}

std::string_view try_help_text() {
    return "Try 'memusage --help' or 'memusage --usage' for more information.\n";
}

}  // namespace memusage
