// memusagestat [OPTION]... DATAFILE [OUTFILE]: options in, one picture out.
// memusagestat --sites=FILE [--top=N]: the allocation-site report of a sites file, or its
// leak report, folded stacks, DHAT JSON, pprof profile.
// memusagestat [--sites=FILE] [--events=FILE] --flame=OUT|--stacked=OUT|--block-map=OUT: pictures.
// memusagestat --html=OUT [DATAFILE] [--sites=FILE] [--events=FILE] [--summary=FILE]: the
// HTML report of a run.
// memusagestat --diff BEFORE AFTER [--fail-if-grown=LIMIT]: what changed between two runs.
#include <sys/stat.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commit_id.h"  // generated at every build: MEMUSAGE_COMMIT
#include "html/html_report.h"
#include "memusagestat/graph.h"
#include "memusagestat/pictures.h"
#include "memusagestat/symbols.h"
#include "reports/diff_report.h"
#include "reports/duration.h"
#include "reports/sites_outputs.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kHelp =
    "Usage: memusagestat [OPTION...] DATAFILE [OUTFILE]\n"
    "  or:  memusagestat --sites=FILE [--top=N] [--stack-peak] [--leaks] [--leak-exitcode=N]\n"
    "                    [--folded=OUT [--folded-metric=METRIC]] [--dhat=OUT]\n"
    "                    [--pprof=OUT] [--massif=OUT] [--events=FILE]\n"
    "                    [--long-lived=DURATION]\n"
    "  or:  memusagestat [--sites=FILE] [--events=FILE] [--flame=OUT] [--stacked=OUT]\n"
    "                    [--block-map=OUT] [-t] [-x VALUE] [-y VALUE] [-s STRING]\n"
    "  or:  memusagestat --html=OUT [DATAFILE] [--sites=FILE] [--events=FILE]\n"
    "                    [--summary=FILE] [--html-window=START..END]\n"
    "  or:  memusagestat --diff BEFORE AFTER [--fail-if-grown=LIMIT] [--top=N]\n"
    "Generate graphic from memory profiling data, or report allocation sites\n"
    "\n"
    "  -o, --output=FILE          Name output file (.png, .svg or .pdf; default\n"
    "                             DATAFILE.png)\n"
    "  -s, --string=STRING        Title string used in output graphic\n"
    "  -t, --time                 Generate output linear to time (default is linear\n"
    "                             to number of function calls)\n"
    "  -T, --total                Also draw graph for total memory consumption\n"
    "  -x, --x-size=VALUE         Make output graphic VALUE pixels wide\n"
    "  -y, --y-size=VALUE         Make output graphic VALUE pixels high\n"
    "      --sites=FILE           Print the allocation-site report of FILE (written by\n"
    "                             memusage --sites or MEMUSAGE_SITES); no graphic\n"
    "      --top=N                Show N sites per ranking in that report, and the\n"
    "                             stack peaks of N threads besides the main one\n"
    "                             (default 10)\n"
    "      --stack-peak           With --sites: report only the stack peaks (the\n"
    "                             frames that held each thread's deepest stack)\n"
    "      --leaks                With --sites: report only the blocks never freed,\n"
    "                             by stack, largest first\n"
    "      --leak-exitcode=N      With --leaks: exit with status N when there are leaks\n"
    "      --folded=OUT           With --sites: write folded stacks to OUT (FlameGraph,\n"
    "                             inferno, speedscope)\n"
    "      --folded-metric=METRIC What they weigh: peak (default), leaked, allocated\n"
    "                             or blocks; kept: what the runtimes keep until exit\n"
    "      --dhat=OUT             With --sites: write DHAT JSON to OUT (dh_view.html)\n"
    "      --pprof=OUT            With --sites: write a pprof profile to OUT (go tool\n"
    "                             pprof, fleet profilers): allocated, at the peak\n"
    "                             (inuse_*) and leaked (leaked_*)\n"
    "      --massif=OUT           With --sites and --events: write massif's format to\n"
    "                             OUT (ms_print): the heap over time, its peak and\n"
    "                             end by stack\n"
    "      --long-lived=DURATION  With --sites and --events: report the sites of blocks\n"
    "                             that lived longer than DURATION (500ms, 2s, 100us)\n"
    "      --sysroot=DIR          Symbols from a copy of the profiled machine's files\n"
    "                             under DIR (a board's root file system): each\n"
    "                             module's path is looked up as DIR/PATH\n"
    "      --events=FILE          The run's event recording (memusage --events or\n"
    "                             MEMUSAGE_EVENTS): gives the DHAT file lifetimes,\n"
    "                             and the next two pictures are drawn from it\n"
    "      --flame=OUT            Draw the flame graph of the --sites FILE into OUT\n"
    "                             (.png, .svg or .pdf)\n"
    "      --flame-metric=WHAT    Its boxes' widths: bytes at the heap 'peak'\n"
    "                             (default), bytes 'leaked', bytes 'allocated'\n"
    "      --stacked=OUT          Draw the heap over time, stacked by site, into OUT\n"
    "      --block-map=OUT        Draw every block by address and time into OUT\n"
    "      --color-by=WHAT        The block map's colours: 'site' (default),\n"
    "                             'thread' or 'size'\n"
    "      --html=OUT             Write the run's HTML report to OUT: one file that\n"
    "                             opens offline in a browser, from whichever of\n"
    "                             DATAFILE, --sites, --events and --summary are given\n"
    "      --summary=FILE         The run's summary file (memusage --html or\n"
    "                             MEMUSAGE_SUMMARY_FILE): the summary's figures\n"
    "      --html-window=START..END  With --html: report only this part of the run,\n"
    "                             every event of it (times as --long-lived takes\n"
    "                             them: 1.5s..2s, 100ms..)\n"
    "      --diff BEFORE AFTER    Compare two runs' sites files (totals, and the sites\n"
    "                             that changed most), or two data files (totals)\n"
    "      --fail-if-grown=LIMIT  With --diff: exit with status 3 when the heap peak\n"
    "                             grew by more than LIMIT (10%, or a size: 64k)\n"
    "  -?, --help                 Give this help list\n"
    "      --usage                Give a short usage message\n"
    "  -V, --version              Print program version\n"
    "\n"
    "Mandatory or optional arguments to long options are also mandatory or optional\n"
    "for any corresponding short options.\n";

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
    "            [--summary=FILE] [--html-window=START..END]\n"
    "   or: memusagestat --diff BEFORE AFTER [--fail-if-grown=LIMIT] [--top=N]\n";

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

// What --sites makes, as given on the command line.
struct SitesRequest {
    std::string path, top, leak_exitcode, folded, folded_metric, dhat, pprof, massif, events,
        long_lived;
    bool leaks = false;
    bool stack_peak = false;
};

int report_sites(const SitesRequest& request) {
    memusagestat::SitesOutputs outputs;
    if (!request.top.empty() && (!parse_size(request.top, outputs.top) || outputs.top == 0))
        return fail("invalid count '" + request.top + "' for --top (want a number above 0)");
    unsigned leak_exitcode = 0;
    if (!request.leak_exitcode.empty() &&
        (!parse_size(request.leak_exitcode, leak_exitcode) || leak_exitcode > 255))
        return fail("invalid exit status '" + request.leak_exitcode +
                    "' for --leak-exitcode (want 0 to 255)");
    if (!request.folded_metric.empty() &&
        !memusagestat::parse_folded_metric(request.folded_metric, outputs.folded_metric))
        return fail("invalid metric '" + request.folded_metric +
                    "' for --folded-metric (want peak, leaked, kept, allocated or blocks)");
    if (!request.long_lived.empty()) {
        outputs.long_lived = memusagestat::parse_duration(request.long_lived);
        if (!outputs.long_lived)
            return fail(memusagestat::duration_error(request.long_lived, "--long-lived"));
        if (request.events.empty()) return fail("--long-lived needs --events=EVENTS");
    }
    outputs.events_path = request.events;
    if (!request.folded_metric.empty() && request.folded.empty())
        return fail("--folded-metric goes with --folded");
    outputs.leaks = request.leaks || !request.leak_exitcode.empty();
    outputs.folded_path = request.folded;
    outputs.dhat_path = request.dhat;
    outputs.pprof_path = request.pprof;
    outputs.massif_path = request.massif;
    // The rankings and the stack peaks, unless another report or an export is asked for.
    outputs.rankings = !outputs.leaks && !outputs.long_lived && outputs.folded_path.empty() &&
                       outputs.dhat_path.empty() && outputs.pprof_path.empty() &&
                       outputs.massif_path.empty() && !request.stack_peak;
    outputs.stack_peak = outputs.rankings || request.stack_peak;

    memusagestat::SitesResult result;
    std::string error = memusagestat::make_sites_outputs(request.path, outputs, result);
    if (std::fputs(result.text.c_str(), stdout) < 0) return 1;
    if (!result.warning.empty()) std::fprintf(stderr, "memusagestat: %s\n", result.warning.c_str());
    if (!error.empty()) {
        std::fprintf(stderr, "memusagestat: %s\n", error.c_str());
        return 1;
    }
    return result.leaks_found ? static_cast<int>(leak_exitcode) : 0;
}

// The pictures of where and when: each one asked for is drawn; the status says whether all were.
struct PictureRequest {
    std::string sites, events, flame, flame_metric, stacked, block_map, color_by;
    bool any() const { return !flame.empty() || !stacked.empty() || !block_map.empty(); }
};

int draw_pictures(const PictureRequest& request, const memusagestat::PictureOptions& options) {
    using memusagestat::BlockColouring;
    using memusagestat::FlameMetric;
    if (!request.flame.empty() && request.sites.empty())
        return fail("--flame draws from a sites file: give --sites=FILE");
    if ((!request.stacked.empty() || !request.block_map.empty()) && request.events.empty())
        return fail("--stacked and --block-map draw from an event recording: give --events=FILE");
    FlameMetric metric = FlameMetric::peak;
    if (request.flame_metric == "leaked")
        metric = FlameMetric::leaked;
    else if (request.flame_metric == "allocated")
        metric = FlameMetric::allocated;
    else if (!request.flame_metric.empty() && request.flame_metric != "peak")
        return fail("invalid --flame-metric '" + request.flame_metric +
                    "' (want peak, leaked or allocated)");
    BlockColouring colouring = BlockColouring::site;
    if (request.color_by == "thread")
        colouring = BlockColouring::thread;
    else if (request.color_by == "size")
        colouring = BlockColouring::size;
    else if (!request.color_by.empty() && request.color_by != "site")
        return fail("invalid --color-by '" + request.color_by + "' (want site, thread or size)");

    int status = 0;
    auto report = [&](const std::string& error) {
        if (error.empty()) return;
        std::fprintf(stderr, "memusagestat: %s\n", error.c_str());
        status = 1;
    };
    if (!request.flame.empty())
        report(memusagestat::draw_flame_graph(request.sites, request.flame, metric, options));
    if (!request.stacked.empty())
        report(memusagestat::draw_heap_by_site(request.events, request.sites, request.stacked,
                                               options));
    if (!request.block_map.empty())
        report(memusagestat::draw_block_map(request.events, request.sites, request.block_map,
                                            colouring, options));
    return status;
}

// The HTML report, from whichever of the run's files are given.
struct HtmlRequest {
    std::string out, summary, window;
};

int write_html(const HtmlRequest& html, const SitesRequest& sites,
               const std::vector<std::string>& files) {
    if (files.size() > 1) return fail("--html takes one DATAFILE: '" + files[1] + "'");
    memusagestat::HtmlReportRequest request;
    if (!files.empty()) request.data_path = files[0];
    request.sites_path = sites.path;
    request.events_path = sites.events;
    request.summary_path = html.summary;
    if (!html.window.empty()) {
        request.window = memusagestat::parse_time_window(html.window);
        if (!request.window) return fail(memusagestat::time_window_error(html.window));
    }
    std::vector<std::string> warnings;
    const std::string error = memusagestat::write_html_report(request, html.out, warnings);
    for (const std::string& warning : warnings)
        std::fprintf(stderr, "memusagestat: warning: %s\n", warning.c_str());
    if (!error.empty()) {
        std::fprintf(stderr, "memusagestat: %s\n", error.c_str());
        return 1;
    }
    return 0;
}

// memusagestat --diff BEFORE AFTER.
int diff_runs(const std::vector<std::string>& files, const std::string& top,
              const std::string& limit) {
    if (files.size() != 2) return fail("--diff takes two files: BEFORE AFTER");
    memusagestat::DiffOptions options;
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
    std::string error = memusagestat::diff_files(files[0], files[1], options, result);
    if (!error.empty()) {
        std::fprintf(stderr, "memusagestat: %s\n", error.c_str());
        return 1;
    }
    if (std::fputs(result.text.c_str(), stdout) < 0) return 1;
    return result.grown_beyond_limit ? memusagestat::kGrownExitStatus : 0;
}

int run_command(int argc, char** argv) {
    std::string output, title, x_size, y_size;
    SitesRequest sites;
    std::vector<std::string> files;
    PictureRequest pictures;
    HtmlRequest html;
    bool time_based = false, total = false, diff = false;
    std::string fail_if_grown;
    std::string sysroot;

    po::options_description options;
    options.add_options()                                    //
        ("output,o", po::value(&output))                     //
        ("string,s", po::value(&title))                      //
        ("time,t", po::bool_switch(&time_based))             //
        ("total,T", po::bool_switch(&total))                 //
        ("x-size,x", po::value(&x_size))                     //
        ("y-size,y", po::value(&y_size))                     //
        ("sites", po::value(&sites.path))                    //
        ("top", po::value(&sites.top))                       //
        ("leaks", po::bool_switch(&sites.leaks))             //
        ("stack-peak", po::bool_switch(&sites.stack_peak))   //
        ("leak-exitcode", po::value(&sites.leak_exitcode))   //
        ("folded", po::value(&sites.folded))                 //
        ("folded-metric", po::value(&sites.folded_metric))   //
        ("dhat", po::value(&sites.dhat))                     //
        ("pprof", po::value(&sites.pprof))                   //
        ("massif", po::value(&sites.massif))                 //
        ("events", po::value(&sites.events))                 //
        ("sysroot", po::value(&sysroot))                     //
        ("long-lived", po::value(&sites.long_lived))         //
        ("flame", po::value(&pictures.flame))                //
        ("flame-metric", po::value(&pictures.flame_metric))  //
        ("stacked", po::value(&pictures.stacked))            //
        ("block-map", po::value(&pictures.block_map))        //
        ("color-by", po::value(&pictures.color_by))          //
        ("html", po::value(&html.out))                       //
        ("html-window", po::value(&html.window))             //
        ("summary", po::value(&html.summary))                //
        ("diff", po::bool_switch(&diff))                     //
        ("fail-if-grown", po::value(&fail_if_grown))         //
        ("help,?", "")                                       //
        ("usage", "")                                        //
        ("version,V", "")                                    //
        ("files", po::value(&files));
    po::positional_options_description positional;
    positional.add("files", -1);

    po::variables_map given;
    try {
        po::store(po::command_line_parser(argc, argv)
                      .options(options)
                      .positional(positional)
                      .style(po::command_line_style::default_style)
                      .run(),
                  given);
        po::notify(given);
    } catch (const po::unknown_option& e) {
        // In memusage's words and glibc's, not Boost's British "unrecognised".
        return fail("unrecognized option '" + e.get_option_name() + "'");
    } catch (const po::error& e) {
        return fail(e.what());
    }

    if (given.count("help")) return std::fputs(kHelp, stdout) < 0;
    if (given.count("usage")) return std::fputs(kUsage, stdout) < 0;
    if (given.count("version")) return std::fputs(kVersion, stdout) < 0;
    if (given.count("sysroot")) {
        struct stat root {};
        if (::stat(sysroot.c_str(), &root) != 0 || !S_ISDIR(root.st_mode))
            return fail("--sysroot: " + sysroot + " is not a directory");
        memusagestat::set_symbol_sysroot(sysroot);
    }

    if (diff) {
        for (const char* option :
             {"sites",      "leaks", "leak-exitcode", "folded",  "folded-metric",
              "dhat",       "pprof", "massif",        "events",  "long-lived",
              "stack-peak", "flame", "flame-metric",  "stacked", "block-map",
              "color-by",   "html",  "html-window",   "summary", "output",
              "string",     "time",  "total",         "x-size",  "y-size"})
            if (given.count(option) && !given[option].defaulted())
                return fail(std::string("--") + option + " does not go with --diff");
        return diff_runs(files, sites.top, fail_if_grown);
    }
    if (given.count("fail-if-grown")) return fail("--fail-if-grown goes with --diff");

    if (given.count("html")) {
        if (html.out.empty()) return fail("--html needs a file name: --html=OUT");
        for (const char* option :
             {"top",          "leaks",   "leak-exitcode", "folded",     "folded-metric",
              "dhat",         "pprof",   "massif",        "long-lived", "flame",
              "flame-metric", "stacked", "block-map",     "color-by",   "output",
              "string",       "time",    "total",         "x-size",     "y-size"})
            if (given.count(option) && !given[option].defaulted())
                return fail(std::string("--") + option + " does not go with --html");
        return write_html(html, sites, files);
    }
    if (given.count("html-window")) return fail("--html-window goes with --html");
    if (given.count("summary")) return fail("--summary goes with --html");

    if (pictures.any()) {
        if (!files.empty()) return fail("the pictures take no DATAFILE: '" + files[0] + "'");
        for (const char* option : {"top", "leaks", "leak-exitcode", "folded", "folded-metric",
                                   "dhat", "pprof", "massif", "long-lived", "stack-peak"})
            if (given.count(option) && !given[option].defaulted())
                return fail(std::string("--") + option +
                            " goes with the sites report, not the pictures");
        pictures.sites = sites.path;
        pictures.events = sites.events;
        memusagestat::PictureOptions options;
        options.title = title;
        options.time_based = time_based;
        if (given.count("x-size") && !parse_size(x_size, options.width))
            return fail("invalid width '" + x_size + "' (want a number of pixels)");
        if (given.count("y-size") && !parse_size(y_size, options.height))
            return fail("invalid height '" + y_size + "' (want a number of pixels)");
        return draw_pictures(pictures, options);
    }
    if (given.count("flame-metric")) return fail("--flame-metric goes with --flame");
    if (given.count("color-by")) return fail("--color-by goes with --block-map");

    if (given.count("sites")) {
        if (!files.empty()) return fail("--sites takes no DATAFILE: '" + files[0] + "'");
        return report_sites(sites);
    }
    for (const char* option : {"top", "leaks", "leak-exitcode", "folded", "folded-metric", "dhat",
                               "pprof", "massif", "events", "long-lived", "stack-peak"})
        if (given.count(option) && !given[option].defaulted())
            return fail(std::string("--") + option + " only goes with --sites");
    if (files.empty()) return fail("missing DATAFILE");
    if (files.size() > 2) return fail("too many arguments: '" + files[2] + "'");

    memusagestat::GraphOptions graph;
    graph.title = title;
    graph.time_based = time_based;
    graph.total = total;
    if (given.count("x-size") && !parse_size(x_size, graph.width))
        return fail("invalid width '" + x_size + "' (want a number of pixels)");
    if (given.count("y-size") && !parse_size(y_size, graph.height))
        return fail("invalid height '" + y_size + "' (want a number of pixels)");

    const std::string& data_path = files[0];
    // Like glibc, an OUTFILE argument wins over -o.
    const std::string out_path = files.size() == 2 ? files[1]
                                 : !output.empty() ? output
                                                   : data_path + ".png";
    const std::string error = memusagestat::draw_graph(data_path, out_path, graph);
    if (!error.empty()) {
        std::fprintf(stderr, "memusagestat: %s\n", error.c_str());
        return 1;
    }
    return 0;
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
