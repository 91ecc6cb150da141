// SPDX-License-Identifier: MIT
// The driver's command line, parsed into plain data and nothing else: no environment, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memusage {

enum class ColorWhen { automatic, always, never };

inline constexpr unsigned kDefaultSitesShown = 10;
// --sites-sample without a value: 512 KiB, tcmalloc's and jemalloc's default.
inline constexpr uint64_t kDefaultSitesSample = 524288;
inline constexpr uint64_t kMaxSitesSample = uint64_t{1} << 30;

struct DriverOptions {
    std::string progname;            // -n: profile only the process with this short name
    std::string png_path;            // -p: already ends in ".png"; empty draws nothing
    std::string data_path;           // -d: keep the data file here; empty means none
    std::string buffer_size;         // -b / -u: records per write, as given (validated digits)
    bool no_timer = false;           // --no-timer
    bool trace_mmap = false;         // -m
    std::optional<ColorWhen> color;  // --color; unset leaves the collector's own choice
    std::optional<unsigned> sites;   // --sites[=N]: report the top N allocation sites
    // --stack-peak[=N]: report the frames of the main thread's stack peak and of the N
    // deepest other threads' (with --sites, too, the N being its)
    std::optional<unsigned> stack_peak;
    // Allocation-site reports and exports, as given (checked by sites_request_error); each
    // records the sites as --sites does.
    bool leaks = false;                     // --leaks: report the blocks never freed
    std::optional<unsigned> leak_exitcode;  // --leak-exitcode=N: exit N on leaks (0: off)
    std::string folded_path;                // --folded=OUT
    std::string folded_metric;              // --folded-metric=METRIC
    std::string dhat_path;                  // --dhat=OUT
    std::string pprof_path;                 // --pprof=OUT
    std::string massif_path;                // --massif=OUT
    std::string long_lived;                 // --long-lived=DURATION
    std::string sites_sample;               // --sites-sample[=BYTES]: as given, or the default
    std::string sites_path;                 // --sites-file: keep the sites file here; empty: none
    std::string events_path;                // --events: record every heap event here; empty: none
    std::string html_path;                  // --html: write the run's HTML report here; empty: none
    std::string source_dir;  // --source-dir: where the report looks for moved source files
    // --keep=DIR: keep the run's files there (run.dat, run.sites, run.events, run.summary)
    // unless -d, --sites-file or --events names one; empty: none.
    std::string keep_dir;
    // Not an option: where the collector writes the summary's figures (MEMUSAGE_SUMMARY_FILE),
    // set by the driver for --html; empty: nowhere.
    std::string summary_path;
    // Out-of-memory testing and the per-thread table, as given (validated).
    std::string limit;             // --limit=SIZE
    std::string fail_at;           // --fail-at=N
    std::string fail_from;         // --fail-from=N
    std::string fail_probability;  // --fail-probability=P
    std::string fail_seed;         // --fail-seed=S
    bool thread_table = false;     // --threads
    // The live view (memusage/src/live/).
    bool live = false;             // --live: show the running program's figures
    bool list_processes = false;   // --ps: list the profiled processes running now
    std::optional<int> watch_pid;  // --watch=PID: show that process's figures
    // Attaching to a running process (memusage/src/attach/).
    std::optional<int> attach_pid;  // --attach=PID: profile that process from now on
    std::optional<int> detach_pid;  // --detach=PID: give it back, print its summary
    // Passed to the graph.
    bool time_based = false;         // -t
    bool total = false;              // -T
    std::string title;               // --title, one argument whatever it contains
    std::optional<unsigned> width;   // -x
    std::optional<unsigned> height;  // -y
    // The program and its arguments, untouched.
    std::vector<std::string> command;
    // The driver's whole command line, options and program, as given (the report's notice
    // gives it again with --keep).
    std::vector<std::string> arguments;
    // The options handed over to the report module, in command-line order: memusagestat's name
    // for each (DriverOption::passed_as) and its value as given (sites_request.cpp).
    std::vector<std::pair<std::string_view, std::string>> handed_over;
};

enum class DriverAction { run, help, usage, version, fail };

// How an option takes its value: none (a switch), after "=" or as the next word, or only
// after "=" (--sites[=N]: the next word is the program).
enum class OptionValue { none, required, optional };

// An option's value it cannot take: "invalid WHAT 'VALUE' for '--NAME'", then ADVICE.
struct InvalidValue {
    const char* what = nullptr;  // null: the value was taken
    const char* advice = "";
};

// One row of the driver's options (options.cpp): the parser, --help (help_text.cpp), the
// checks of what goes together and the hand-over to memusagestat's code are made from it.
struct DriverOption {
    std::string_view name;  // the long name, without "--"
    char short_name;        // 0: none
    OptionValue value;
    std::string_view shown;  // the argument as --help shows it after the name: "=FILE", "[=N]"
    std::string_view help;   // its --help lines, '\n' between them
    // Sets what the option asks for in DriverOptions; null for --help, --usage, --version.
    InvalidValue (*apply)(const std::string& value, DriverOptions& options);
    DriverAction action = DriverAction::run;  // --help, --usage, --version: what it asks for
    std::string_view heading = {};    // printed in --help before it (a blank line, a heading)
    std::string_view passed_as = {};  // memusagestat's name for it, when handed over; else empty
    // Options of one group exclude each other; given without `needs`, the option is refused.
    std::string_view excludes_group = {};
    std::string_view needs = {};
};

// In the order --help lists them.
std::span<const DriverOption> driver_options();

struct ParsedCommandLine {
    DriverAction action = DriverAction::fail;
    DriverOptions options;
    std::string error;  // set when action is fail: the whole line to print, no newline
};

// Never throws: bad input comes back as DriverAction::fail with a message.
ParsedCommandLine parse_command_line(const std::vector<std::string>& arguments);

// What the options ask of the run, inline: the report module (report_module.h) uses them
// too, and links none of the driver's core.

// The options ask for a report or an export of the allocation sites.
inline bool wants_sites(const DriverOptions& options) {
    return options.sites || options.leaks || !options.folded_path.empty() ||
           !options.dhat_path.empty() || !options.pprof_path.empty() ||
           !options.massif_path.empty() || !options.long_lived.empty();
}

// --stack-peak without anything that needs allocation sites: the collector keeps the stack
// peaks in the sites file (MEMUSAGE_STACK_PEAK) without capturing every allocation's stack.
inline bool wants_stack_peak_only(const DriverOptions& options) {
    return options.stack_peak.has_value() && !wants_sites(options);
}

// The options need the run's event recording too (lifetimes: --dhat, --long-lived; times:
// --massif): the one --events names, or a private one.
inline bool wants_events(const DriverOptions& options) {
    return !options.dhat_path.empty() || !options.massif_path.empty() ||
           !options.long_lived.empty();
}

// --html: the run's HTML report.
inline bool wants_html(const DriverOptions& options) { return !options.html_path.empty(); }

}  // namespace memusage
