// SPDX-License-Identifier: MIT
// memusagestat [OPTION]... DATAFILE [OUTFILE]: options in, one picture out.
// memusagestat --sites=FILE [--top=N]: the allocation-site report of a sites file, or its
// leak report, folded stacks, DHAT JSON, pprof profile.
// memusagestat [--sites=FILE] [--events=FILE] --flame=OUT|--stacked=OUT|--block-map=OUT: pictures.
// memusagestat --html=OUT [DATAFILE] [--sites=FILE] [--events=FILE] [--summary=FILE]: the
// HTML report of a run.
// memusagestat --diff BEFORE AFTER [--fail-if-grown=LIMIT]: what changed between two runs.
// memusagestat --html=OUT --diff BEFORE AFTER: the page of the two runs.
#include <sys/stat.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "commit_id.h"  // generated at every build: MEMUSAGE_COMMIT
#include "html/diff_page_data.h"
#include "html/html_report.h"
#include "memusagestat/graph.h"
#include "memusagestat/pictures.h"
#include "memusagestat/symbols.h"
#include "options_table.h"
#include "reports/diff_report.h"
#include "reports/duration.h"
#include "reports/sites_options.h"
#include "reports/sites_outputs.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage =
    "Usage: memusagestat [-tT?V] [-o FILE] [-s STRING] [-x VALUE] [-y VALUE]\n"
    "            [--output=FILE] [--string=STRING] [--time] [--total]\n"
    "            [--x-size=VALUE] [--y-size=VALUE] [--help] [--usage] [--version]\n"
    "            DATAFILE [OUTFILE]\n"
    "   or: memusagestat --sites=FILE [--top=N] [--stack-peak] [--leaks] [--leak-exitcode=N]\n"
    "            [--folded=OUT] [--folded-metric=METRIC] [--dhat=OUT] [--pprof=OUT]\n"
    "            [--massif=OUT]\n"
    "            [--events=FILE] [--long-lived=DURATION]\n"
    "   or: memusagestat [--sites=FILE] [--events=FILE] [--flame=OUT]\n"
    "            [--flame-metric=peak|leaked|allocated] [--stacked=OUT] [--block-map=OUT]\n"
    "            [--color-by=site|thread|size] [-t] [-x VALUE] [-y VALUE] [-s STRING]\n"
    "   or: memusagestat --html=OUT [DATAFILE] [--sites=FILE] [--events=FILE]\n"
    "            [--summary=FILE] [--html-window=START..END] [--source-dir=DIR]\n"
    "   or: memusagestat --diff BEFORE AFTER [--fail-if-grown=LIMIT] [--top=N]\n"
    "   or: memusagestat --html=OUT --diff BEFORE AFTER\n";

constexpr const char* kVersion =
    "memusagestat (memusage) " MEMUSAGE_VERSION " (commit " MEMUSAGE_COMMIT
    ")\n"
    "This is free software under the MIT license; there is NO warranty.\n";

int fail(const std::string& message) {
    std::fprintf(stderr,
                 "memusagestat: %s\n"
                 "Try 'memusagestat --help' or 'memusagestat --usage' for more information.\n",
                 message.c_str());
    return 1;
}

// A size is a plain decimal number; glibc's atoi would quietly read "abc" as 0.
bool parse_size(const std::string& text, unsigned& out) {
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, out);
    return error == std::errc{} && stop == end && !text.empty();
}

using memusagestat::given;
using memusagestat::StatOption;
using memusagestat::value_of;

std::string named(const StatOption& option) { return "--" + std::string(option.name); }

// The message for a value --sites cannot take; ask_sites_output refused it.
std::string invalid_sites_value(std::string_view option, const std::string& value) {
    if (option == "long-lived") return memusagestat::duration_error(value, "--long-lived");
    return "invalid metric '" + value +
           "' for --folded-metric (want peak, leaked, kept, allocated or blocks)";
}

// What --sites asks for, from the options given, through the mapping memusage uses too.
std::optional<int> ask_sites_outputs(const po::variables_map& args,
                                     memusagestat::SitesOutputs& outputs) {
    for (const StatOption& option : memusagestat::stat_options()) {
        if (!given(args, option.name) || !memusagestat::is_sites_output_option(option.name))
            continue;
        const std::string value = value_of(args, option.name);
        if (option.takes_value && value.empty()) continue;
        if (!memusagestat::ask_sites_output(option.name, value, outputs))
            return fail(invalid_sites_value(option.name, value));
    }
    outputs.events_path = value_of(args, "events");
    if (outputs.long_lived && outputs.events_path.empty())
        return fail("--long-lived needs --events=EVENTS");
    if (!value_of(args, "folded-metric").empty() && outputs.folded_path.empty())
        return fail("--folded-metric goes with --folded");
    return std::nullopt;
}

int report_sites(const po::variables_map& args) {
    memusagestat::SitesOutputs outputs;
    const std::string top = value_of(args, "top");
    if (!top.empty() && (!parse_size(top, outputs.top) || outputs.top == 0))
        return fail("invalid count '" + top + "' for --top (want a number above 0)");
    unsigned leak_exitcode = 0;
    const std::string exitcode = value_of(args, "leak-exitcode");
    if (!exitcode.empty() && (!parse_size(exitcode, leak_exitcode) || leak_exitcode > 255))
        return fail("invalid exit status '" + exitcode + "' for --leak-exitcode (want 0 to 255)");
    if (std::optional<int> refused = ask_sites_outputs(args, outputs)) return *refused;
    // The rankings and the stack peaks, unless another report or an export is asked for.
    outputs.rankings = !outputs.leaks && !outputs.long_lived && outputs.folded_path.empty() &&
                       outputs.dhat_path.empty() && outputs.pprof_path.empty() &&
                       outputs.massif_path.empty() && !outputs.stack_peak;
    outputs.stack_peak = outputs.rankings || outputs.stack_peak;

    memusagestat::SitesResult result;
    const memusage::Status made =
        memusagestat::make_sites_outputs(value_of(args, "sites"), outputs, result);
    if (std::fputs(result.text.c_str(), stdout) < 0) return 1;
    if (!result.warning.empty()) std::fprintf(stderr, "memusagestat: %s\n", result.warning.c_str());
    if (!made.ok()) {
        std::fprintf(stderr, "memusagestat: %s\n", made.error().c_str());
        return 1;
    }
    return result.leaks_found ? static_cast<int>(leak_exitcode) : 0;
}

// -s, -t, -x, -y: the title, the time axis and the size of a picture or of the graph.
std::optional<int> picture_options(const po::variables_map& args,
                                   memusagestat::PictureOptions& options) {
    options.title = value_of(args, "string");
    options.time_based = given(args, "time");
    const std::string width = value_of(args, "x-size"), height = value_of(args, "y-size");
    if (given(args, "x-size") && !parse_size(width, options.width))
        return fail("invalid width '" + width + "' (want a number of pixels)");
    if (given(args, "y-size") && !parse_size(height, options.height))
        return fail("invalid height '" + height + "' (want a number of pixels)");
    return std::nullopt;
}

bool wants_pictures(const po::variables_map& args) {
    return !value_of(args, "flame").empty() || !value_of(args, "stacked").empty() ||
           !value_of(args, "block-map").empty();
}

// The pictures of where and when: each one asked for is drawn; the status says whether all were.
int draw_pictures(const po::variables_map& args) {
    using memusagestat::BlockColouring;
    using memusagestat::FlameMetric;
    const std::string sites = value_of(args, "sites"), events = value_of(args, "events");
    const std::string flame = value_of(args, "flame"), stacked = value_of(args, "stacked"),
                      block_map = value_of(args, "block-map");
    const std::string flame_metric = value_of(args, "flame-metric");
    const std::string color_by = value_of(args, "color-by");
    memusagestat::PictureOptions options;
    if (std::optional<int> refused = picture_options(args, options)) return *refused;
    if (!flame.empty() && sites.empty())
        return fail("--flame draws from a sites file: give --sites=FILE");
    if ((!stacked.empty() || !block_map.empty()) && events.empty())
        return fail("--stacked and --block-map draw from an event recording: give --events=FILE");
    FlameMetric metric = FlameMetric::peak;
    if (flame_metric == "leaked")
        metric = FlameMetric::leaked;
    else if (flame_metric == "allocated")
        metric = FlameMetric::allocated;
    else if (!flame_metric.empty() && flame_metric != "peak")
        return fail("invalid --flame-metric '" + flame_metric +
                    "' (want peak, leaked or allocated)");
    BlockColouring colouring = BlockColouring::site;
    if (color_by == "thread")
        colouring = BlockColouring::thread;
    else if (color_by == "size")
        colouring = BlockColouring::size;
    else if (!color_by.empty() && color_by != "site")
        return fail("invalid --color-by '" + color_by + "' (want site, thread or size)");

    int status = 0;
    auto report = [&](const memusage::Status& drawn) {
        if (drawn.ok()) return;
        std::fprintf(stderr, "memusagestat: %s\n", drawn.error().c_str());
        status = 1;
    };
    if (!flame.empty()) report(memusagestat::draw_flame_graph(sites, flame, metric, options));
    if (!stacked.empty()) report(memusagestat::draw_heap_by_site(events, sites, stacked, options));
    if (!block_map.empty())
        report(memusagestat::draw_block_map(events, sites, block_map, colouring, options));
    return status;
}

// The HTML report, from whichever of the run's files are given.
int write_html(const po::variables_map& args, const std::vector<std::string>& files) {
    if (files.size() > 1) return fail("--html takes one DATAFILE: '" + files[1] + "'");
    memusagestat::HtmlReportRequest request;
    if (!files.empty()) request.data_path = files[0];
    request.sites_path = value_of(args, "sites");
    request.events_path = value_of(args, "events");
    request.summary_path = value_of(args, "summary");
    if (const std::string window = value_of(args, "html-window"); !window.empty()) {
        request.window = memusagestat::parse_time_window(window);
        if (!request.window) return fail(memusagestat::time_window_error(window));
    }
    if (given(args, "source-dir")) {
        request.source_dir = value_of(args, "source-dir");
        struct stat directory {};
        if (::stat(request.source_dir.c_str(), &directory) != 0 || !S_ISDIR(directory.st_mode))
            return fail("--source-dir: '" + request.source_dir + "' is not a directory");
    }
    std::vector<std::string> warnings;
    const memusage::Status written =
        memusagestat::write_html_report(request, value_of(args, "html"), warnings);
    for (const std::string& warning : warnings)
        std::fprintf(stderr, "memusagestat: warning: %s\n", warning.c_str());
    if (!written.ok()) {
        std::fprintf(stderr, "memusagestat: %s\n", written.error().c_str());
        return 1;
    }
    return 0;
}

// memusagestat --diff BEFORE AFTER.
int diff_runs(const po::variables_map& args, const std::vector<std::string>& files) {
    if (files.size() != 2) return fail("--diff takes two files: BEFORE AFTER");
    memusagestat::DiffOptions options;
    const std::string top = value_of(args, "top"), limit = value_of(args, "fail-if-grown");
    if (!top.empty() && (!parse_size(top, options.top) || options.top == 0))
        return fail("invalid count '" + top + "' for --top (want a number above 0)");
    if (!limit.empty()) {
        memusagestat::GrowthLimit parsed;
        if (!memusagestat::parse_growth_limit(limit, parsed))
            return fail("invalid limit '" + limit +
                        "' for --fail-if-grown (want a percentage, 10%, or a size, 64k)");
        options.fail_if_grown = parsed;
    }
    memusagestat::DiffResult result;
    const memusage::Status compared = memusagestat::diff_files(files[0], files[1], options, result);
    if (!compared.ok()) {
        std::fprintf(stderr, "memusagestat: %s\n", compared.error().c_str());
        return 1;
    }
    if (std::fputs(result.text.c_str(), stdout) < 0) return 1;
    return result.grown_beyond_limit ? memusagestat::kGrownExitStatus : 0;
}

// memusagestat --html=OUT --diff BEFORE AFTER: the two-run page.
int write_two_run_page(const po::variables_map& args, const std::vector<std::string>& files) {
    if (files.size() != 2) return fail("--html --diff takes two files: BEFORE AFTER");
    if (value_of(args, "html").empty()) return fail("--html needs a file name: --html=OUT");
    std::vector<std::string> warnings;
    const memusage::Status written =
        memusagestat::write_diff_page({files[0], files[1]}, value_of(args, "html"), warnings);
    for (const std::string& warning : warnings)
        std::fprintf(stderr, "memusagestat: warning: %s\n", warning.c_str());
    if (!written.ok()) {
        std::fprintf(stderr, "memusagestat: %s\n", written.error().c_str());
        return 1;
    }
    return 0;
}

// memusagestat DATAFILE [OUTFILE]: glibc's picture of the data file.
int draw_data_graph(const po::variables_map& args, const std::vector<std::string>& files) {
    if (files.empty()) return fail("missing DATAFILE");
    if (files.size() > 2) return fail("too many arguments: '" + files[2] + "'");
    memusagestat::GraphOptions graph;
    graph.title = value_of(args, "string");
    graph.time_based = given(args, "time");
    graph.total = given(args, "total");
    const std::string width = value_of(args, "x-size"), height = value_of(args, "y-size");
    if (given(args, "x-size") && !parse_size(width, graph.width))
        return fail("invalid width '" + width + "' (want a number of pixels)");
    if (given(args, "y-size") && !parse_size(height, graph.height))
        return fail("invalid height '" + height + "' (want a number of pixels)");

    const std::string& data_path = files[0];
    const std::string output = value_of(args, "output");
    // Like glibc, an OUTFILE argument wins over -o.
    const std::string out_path = files.size() == 2 ? files[1]
                                 : !output.empty() ? output
                                                   : data_path + ".png";
    const memusage::Status drawn = memusagestat::draw_graph(data_path, out_path, graph);
    if (!drawn.ok()) {
        std::fprintf(stderr, "memusagestat: %s\n", drawn.error().c_str());
        return 1;
    }
    return 0;
}

// The option given, in the table's order, that does not go with `command`, refused in the
// words `with` ends them with; nothing when every option given goes with it.
std::optional<int> refuse_others(const po::variables_map& args, memusagestat::Command command,
                                 const std::string& with) {
    const StatOption* other = memusagestat::first_not_going_with(args, command);
    if (!other) return std::nullopt;
    if (command == memusagestat::kPictures && (other->goes_with & memusagestat::kSites))
        return fail(named(*other) + " goes with the sites report, not the pictures");
    return fail(named(*other) + with);
}

// An option given without the one it goes with (whose command was not chosen).
std::optional<int> refuse_needing(const po::variables_map& args, std::string_view needed) {
    const StatOption* option = memusagestat::first_needing(args, needed);
    if (!option) return std::nullopt;
    return fail(named(*option) + " goes with --" + std::string(needed));
}

// Which of memusagestat's commands the options choose, each refusing the options given that
// do not go with it (the table's goes_with and needs).
int run_chosen_command(const po::variables_map& args, const std::vector<std::string>& files) {
    using namespace memusagestat;
    if (given(args, "diff") && given(args, "html")) {
        if (std::optional<int> refused =
                refuse_others(args, kDiffPage, " does not go with --html --diff"))
            return *refused;
        return write_two_run_page(args, files);
    }
    if (given(args, "diff")) {
        if (std::optional<int> refused = refuse_others(args, kDiff, " does not go with --diff"))
            return *refused;
        return diff_runs(args, files);
    }
    if (std::optional<int> refused = refuse_needing(args, "diff")) return *refused;
    if (given(args, "html")) {
        if (value_of(args, "html").empty()) return fail("--html needs a file name: --html=OUT");
        if (std::optional<int> refused = refuse_others(args, kHtml, " does not go with --html"))
            return *refused;
        return write_html(args, files);
    }
    if (std::optional<int> refused = refuse_needing(args, "html")) return *refused;
    if (wants_pictures(args)) {
        if (!files.empty()) return fail("the pictures take no DATAFILE: '" + files[0] + "'");
        if (std::optional<int> refused =
                refuse_others(args, kPictures, " does not go with the pictures"))
            return *refused;
        return draw_pictures(args);
    }
    for (std::string_view picture : {"flame", "block-map"})
        if (std::optional<int> refused = refuse_needing(args, picture)) return *refused;
    if (given(args, "sites")) {
        if (!files.empty()) return fail("--sites takes no DATAFILE: '" + files[0] + "'");
        return report_sites(args);
    }
    if (std::optional<int> refused = refuse_others(args, kGraph, " only goes with --sites"))
        return *refused;
    return draw_data_graph(args, files);
}

// The command line read into `args` and `files`; a status to end with when it cannot be.
std::optional<int> parse_command_line(int argc, char** argv, po::variables_map& args,
                                      std::vector<std::string>& files) {
    po::options_description options = memusagestat::stat_option_parser();
    options.add_options()("files", po::value(&files));
    po::positional_options_description positional;
    positional.add("files", -1);
    try {
        po::store(po::command_line_parser(argc, argv)
                      .options(options)
                      .positional(positional)
                      .style(po::command_line_style::default_style)
                      .run(),
                  args);
        po::notify(args);
    } catch (const po::unknown_option& e) {
        // In memusage's words and glibc's, not Boost's British "unrecognised".
        return fail("unrecognized option '" + e.get_option_name() + "'");
    } catch (const po::error& e) {
        return fail(e.what());
    }
    return std::nullopt;
}

int run_command(int argc, char** argv) {
    po::variables_map args;
    std::vector<std::string> files;
    if (std::optional<int> refused = parse_command_line(argc, argv, args, files)) return *refused;
    if (given(args, "help")) return std::fputs(memusagestat::stat_help_text().c_str(), stdout) < 0;
    if (given(args, "usage")) return std::fputs(kUsage, stdout) < 0;
    if (given(args, "version")) return std::fputs(kVersion, stdout) < 0;
    if (given(args, "sysroot")) {
        const std::string sysroot = value_of(args, "sysroot");
        struct stat root {};
        if (::stat(sysroot.c_str(), &root) != 0 || !S_ISDIR(root.st_mode))
            return fail("--sysroot: " + sysroot + " is not a directory");
        memusagestat::set_symbol_sysroot(sysroot);
    }
    return run_chosen_command(args, files);
}

}  // namespace

int main(int argc, char** argv) {
    // A file size limit (ulimit -f) fails the write that crosses it, which then says so,
    // rather than killing memusagestat halfway through a picture, a report or an export.
    std::signal(SIGXFSZ, SIG_IGN);
    int status = run_command(argc, argv);
    // What went to standard output (a report, --help) was written whole, or the run failed:
    // a buffered write fails only here; a write that failed earlier returned at once, its
    // errno still set (nothing after it touches the disk).
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "memusagestat: cannot write standard output: %s\n",
                     errno != 0 ? std::strerror(errno) : "write error");
        if (status == 0) status = 1;
    }
    return status;
}
