// SPDX-License-Identifier: MIT
#include "options_table.h"

#include <array>
#include <boost/program_options/value_semantic.hpp>

namespace po = boost::program_options;

namespace memusagestat {
namespace {

constexpr unsigned kAFileOfTheRun = kSites | kPictures | kHtml;  // --sites, --events

// A new option is one row here: the parser, --help and the checks of main.cpp follow.
constexpr std::array kOptions = {
    StatOption{"output", 'o', true, "=FILE",
               "Name output file (.png, .svg or .pdf; default\nDATAFILE.png)", kGraph},
    StatOption{"string", 's', true, "=STRING", "Title string used in output graphic",
               kGraph | kPictures},
    StatOption{"time", 't', false, "",
               "Generate output linear to time (default is linear\nto number of function calls)",
               kGraph | kPictures},
    StatOption{"total", 'T', false, "", "Also draw graph for total memory consumption", kGraph},
    StatOption{"x-size", 'x', true, "=VALUE", "Make output graphic VALUE pixels wide",
               kGraph | kPictures},
    StatOption{"y-size", 'y', true, "=VALUE", "Make output graphic VALUE pixels high",
               kGraph | kPictures},
    StatOption{"sites", 0, true, "=FILE",
               "Print the allocation-site report of FILE (written by\nmemusage --sites or "
               "MEMUSAGE_SITES); no graphic",
               kAFileOfTheRun},
    StatOption{"top", 0, true, "=N",
               "Show N sites per ranking in that report, and the\nstack peaks of N threads "
               "besides the main one\n(default 10)",
               kSites | kDiff},
    StatOption{"stack-peak", 0, false, "",
               "With --sites: report only the stack peaks (the\nframes that held each thread's "
               "deepest stack)",
               kSites},
    StatOption{"leaks", 0, false, "",
               "With --sites: report only the blocks never freed,\nby stack, largest first",
               kSites},
    StatOption{"leak-exitcode", 0, true, "=N",
               "With --leaks: exit with status N when there are leaks", kSites},
    StatOption{"folded", 0, true, "=OUT",
               "With --sites: write folded stacks to OUT (FlameGraph,\ninferno, speedscope)",
               kSites},
    StatOption{"folded-metric", 0, true, "=METRIC",
               "What they weigh: peak (default), leaked, allocated\nor blocks; kept: what the "
               "runtimes keep until exit",
               kSites},
    StatOption{"dhat", 0, true, "=OUT", "With --sites: write DHAT JSON to OUT (dh_view.html)",
               kSites},
    StatOption{"pprof", 0, true, "=OUT",
               "With --sites: write a pprof profile to OUT (go tool\npprof, fleet profilers): "
               "allocated, at the peak\n(inuse_*) and leaked (leaked_*)",
               kSites},
    StatOption{"massif", 0, true, "=OUT",
               "With --sites and --events: write massif's format to\nOUT (ms_print): the heap "
               "over time, its peak and\nend by stack",
               kSites},
    StatOption{"long-lived", 0, true, "=DURATION",
               "With --sites and --events: report the sites of blocks\nthat lived longer than "
               "DURATION (500ms, 2s, 100us)",
               kSites},
    StatOption{"sysroot", 0, true, "=DIR",
               "Symbols from a copy of the profiled machine's files\nunder DIR (a board's root "
               "file system): each\nmodule's path is looked up as DIR/PATH"},
    StatOption{"events", 0, true, "=FILE",
               "The run's event recording (memusage --events or\nMEMUSAGE_EVENTS): gives the "
               "DHAT file lifetimes,\nand the next two pictures are drawn from it",
               kAFileOfTheRun},
    StatOption{"flame", 0, true, "=OUT",
               "Draw the flame graph of the --sites FILE into OUT\n(.png, .svg or .pdf)",
               kPictures},
    StatOption{"flame-metric", 0, true, "=WHAT",
               "Its boxes' widths: bytes at the heap 'peak'\n(default), bytes 'leaked', bytes "
               "'allocated'",
               kPictures, "flame"},
    StatOption{"stacked", 0, true, "=OUT", "Draw the heap over time, stacked by site, into OUT",
               kPictures},
    StatOption{"block-map", 0, true, "=OUT", "Draw every block by address and time into OUT",
               kPictures},
    StatOption{"color-by", 0, true, "=WHAT",
               "The block map's colours: 'site' (default),\n'thread' or 'size'", kPictures,
               "block-map"},
    StatOption{"html", 0, true, "=OUT",
               "Write the run's HTML report to OUT: one file that\nopens offline in a browser, "
               "from whichever of\nDATAFILE, --sites, --events and --summary are\ngiven; "
               "with --diff, the page of two runs",
               kHtml | kDiffPage},
    StatOption{"summary", 0, true, "=FILE",
               "The run's summary file (memusage --html or\nMEMUSAGE_SUMMARY_FILE): the "
               "summary's figures",
               kHtml, "html"},
    StatOption{"html-window", 0, true, "=START..END",
               "With --html: report only this part of the run,\nevery event of it (times as "
               "--long-lived takes\nthem: 1.5s..2s, 100ms..)",
               kHtml, "html"},
    StatOption{"source-dir", 0, true, "=DIR",
               "With --html: look for the source files not at their\nrecorded paths under DIR (a "
               "tree moved since the\nbuild): by their path from the compile directory,\nthen by "
               "their last components",
               kHtml, "html"},
    StatOption{"diff", 0, false, " BEFORE AFTER",
               "Compare two runs' sites files (totals, and the sites\nthat changed most), or two "
               "data files (totals)",
               kDiff | kDiffPage},
    StatOption{"fail-if-grown", 0, true, "=LIMIT",
               "With --diff: exit with status 3 when the heap peak\ngrew by more than LIMIT (10%, "
               "or a size: 64k)",
               kDiff, "diff"},
    StatOption{"help", '?', false, "", "Give this help list"},
    StatOption{"usage", 0, false, "", "Give a short usage message"},
    StatOption{"version", 'V', false, "", "Print program version"},
};

constexpr const char* kHelpHead =
    "Usage: memusagestat [OPTION...] DATAFILE [OUTFILE]\n"
    "  or:  memusagestat --sites=FILE [--top=N] [--stack-peak] [--leaks] [--leak-exitcode=N]\n"
    "                    [--folded=OUT [--folded-metric=METRIC]] [--dhat=OUT]\n"
    "                    [--pprof=OUT] [--massif=OUT] [--events=FILE]\n"
    "                    [--long-lived=DURATION]\n"
    "  or:  memusagestat [--sites=FILE] [--events=FILE] [--flame=OUT] [--stacked=OUT]\n"
    "                    [--block-map=OUT] [-t] [-x VALUE] [-y VALUE] [-s STRING]\n"
    "  or:  memusagestat --html=OUT [DATAFILE] [--sites=FILE] [--events=FILE]\n"
    "                    [--summary=FILE] [--html-window=START..END]\n"
    "                    [--source-dir=DIR]\n"
    "  or:  memusagestat --diff BEFORE AFTER [--fail-if-grown=LIMIT] [--top=N]\n"
    "  or:  memusagestat --html=OUT --diff BEFORE AFTER\n"
    "Generate graphic from memory profiling data, or report allocation sites\n"
    "\n";

constexpr const char* kHelpFoot =
    "\n"
    "Mandatory or optional arguments to long options are also mandatory or optional\n"
    "for any corresponding short options.\n";

// Where each option's help begins, as argp lays it out.
constexpr size_t kHelpColumn = 29;

std::string help_lines(const StatOption& option) {
    std::string text = option.short_name ? std::string("  -") + option.short_name + ", " : "      ";
    text += "--" + std::string(option.name) + std::string(option.shown);
    text += text.size() < kHelpColumn ? std::string(kHelpColumn - text.size(), ' ') : "  ";
    for (char c : option.help) {
        text += c;
        if (c == '\n') text += std::string(kHelpColumn, ' ');
    }
    return text + "\n";
}

}  // namespace

std::span<const StatOption> stat_options() { return kOptions; }

po::options_description stat_option_parser() {
    po::options_description parser;
    for (const StatOption& option : kOptions) {
        std::string name(option.name);
        if (option.short_name) name += std::string(",") + option.short_name;
        if (option.takes_value)
            parser.add_options()(name.c_str(), po::value<std::string>());
        else
            parser.add_options()(name.c_str(), po::bool_switch());
    }
    return parser;
}

bool given(const po::variables_map& options, std::string_view name) {
    auto found = options.find(std::string(name));
    return found != options.end() && !found->second.defaulted();
}

std::string value_of(const po::variables_map& options, std::string_view name) {
    auto found = options.find(std::string(name));
    if (found == options.end() || found->second.defaulted()) return {};
    const std::string* value = boost::any_cast<std::string>(&found->second.value());
    return value ? *value : std::string();
}

const StatOption* first_not_going_with(const po::variables_map& options, Command command) {
    for (const StatOption& option : kOptions)
        if (!(option.goes_with & command) && given(options, option.name)) return &option;
    return nullptr;
}

const StatOption* first_needing(const po::variables_map& options, std::string_view needed) {
    for (const StatOption& option : kOptions)
        if (option.needs == needed && given(options, option.name)) return &option;
    return nullptr;
}

const std::string& stat_help_text() {
    static const std::string text = [] {
        std::string lines = kHelpHead;
        for (const StatOption& option : kOptions) lines += help_lines(option);
        return lines + kHelpFoot;
    }();
    return text;
}

}  // namespace memusagestat
