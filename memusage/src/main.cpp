// SPDX-License-Identifier: MIT
// memusage: runs a program with the collector preloaded, then optionally draws its profile.
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "attach/attach_command.h"
#include "child_process.h"
#include "collector_location.h"
#include "environment.h"
#include "help_text.h"
#include "live/live_figures_file.h"
#include "live/live_session.h"
#include "live/process_table.h"
#include "live/terminal_view.h"
#include "options.h"
#include "preload_reach.h"
#include "program_lookup.h"
#include "report_module.h"
#include "temporary_file.h"

extern char** environ;

namespace memusage {
namespace {

constexpr int kUsageError = 1;
constexpr int kSetupError = 1;
constexpr int kGraphError = 1;

void print(std::FILE* stream, std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stream);
}

void complain(const std::string& message) {
    std::fprintf(stderr, "memusage: %s\n", message.c_str());
}

// --help, --usage, --version: 0 when the text reached standard output whole, else 1 with
// the reason (a full disk, a file size limit).
int printed_whole(std::string_view text) {
    ::signal(SIGXFSZ, SIG_IGN);
    errno = 0;
    print(stdout, text);
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return 0;
    complain(std::string("cannot write standard output: ") +
             (errno != 0 ? std::strerror(errno) : "write error"));
    return 1;
}

std::vector<std::string> inherited_environment() {
    std::vector<std::string> entries;
    for (char** entry = environ; entry && *entry; ++entry) entries.emplace_back(*entry);
    return entries;
}

// The collector opens the data file from inside the program, which may change directory
// first; an absolute name means the same file for it and for drawing afterwards.
std::string absolute_path(const std::string& path) {
    std::error_code ignored;
    std::filesystem::path absolute = std::filesystem::absolute(path, ignored);
    return absolute.empty() ? path : absolute.string();
}

constexpr std::string_view kUnprofiledMark = "no process of this run was profiled\n";

void mark_unprofiled(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) return;
    std::fwrite(kUnprofiledMark.data(), 1, kUnprofiledMark.size(), file);
    std::fclose(file);
}

// The mark is still there, untouched: no collector in any process of the run profiled.
bool still_unprofiled(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) return false;
    char bytes[kUnprofiledMark.size() + 1];
    const size_t read = std::fread(bytes, 1, sizeof bytes, file);
    std::fclose(file);
    return std::string_view(bytes, read) == kUnprofiledMark;
}

// The process that holds an exclusive flock on `path`, as /proc/locks lists it, or 0. The
// collector holds one on every file it writes, for as long as its process lives. Read, not
// tried: taking even a shared lock for a moment could make a collector starting meanwhile
// think the file taken, and write nothing.
long writer_of(const std::string& path) {
    struct stat file {};
    if (::stat(path.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) return 0;
    std::FILE* locks = std::fopen("/proc/locks", "re");
    if (locks == nullptr) return 0;
    char line[256];
    long writer = 0;
    while (writer == 0 && std::fgets(line, sizeof line, locks) != nullptr) {
        char kind[16], mode[16];
        long pid = 0;
        unsigned major = 0, minor = 0;
        unsigned long inode = 0;
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters' lines have "->".
        if (std::strstr(line, "->") != nullptr ||
            std::sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", kind, mode, &pid, &major, &minor,
                        &inode) != 6)
            continue;
        if (std::strcmp(kind, "FLOCK") == 0 && std::strcmp(mode, "WRITE") == 0 &&
            inode == file.st_ino && major == major(file.st_dev) && minor == minor(file.st_dev))
            writer = pid;
    }
    std::fclose(locks);
    return writer;
}

// A file another run's collector is writing: this run would find it taken, write nothing,
// and report the other run's. Refused before the program starts.
Failure file_taken(const std::string& path, const std::string& option, long pid) {
    return Failure{"cannot use " + path + " (" + option + "): process " + std::to_string(pid) +
                   " is writing it, the collector of another run still going; name another file"};
}

Status file_in_use(const DriverOptions& options, const std::string& sites_path) {
    std::vector<std::pair<std::string, std::string>> named = {{"-d", options.data_path},
                                                              {"--events", options.events_path}};
    named.push_back({options.sites_path.empty() ? "--events" : "--sites-file", sites_path});
    for (const auto& [option, path] : named) {
        if (path.empty()) continue;
        if (long pid = writer_of(path); pid != 0) return file_taken(path, option, pid);
    }
    return {};
}

// The report module, for the options that need it (needs_report_module); null, having
// said why, when it cannot be loaded.
const ReportFunctions* load_report_module() {
    const Result<const ReportFunctions*> reports = report_functions();
    if (!reports.ok()) {
        complain(reports.error());
        return nullptr;
    }
    return reports.value();
}

// --ps: the profiled processes running now.
int list_processes() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t now_ns =
        static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
    print(stdout, live::process_table(live::running_processes(), now_ns));
    return 0;
}

// --watch=PID: the live view of a profiled process running now.
int watch(int pid) {
    if (Status terminal = live::terminal_problem(); !terminal.ok()) {
        complain(terminal.error());
        return kUsageError;
    }
    // The view names the sites with the module's symbolizer.
    if (load_report_module() == nullptr) return kSetupError;
    live::ViewSource source;
    source.pid = pid;
    const Result<live::ViewEnd> shown = live::show_live_view(source);
    if (!shown.ok()) {
        complain(shown.error());
        return kUsageError;
    }
    switch (shown.value()) {
        case live::ViewEnd::process_ended:
            complain("process " + std::to_string(pid) + " has ended");
            return 0;
        case live::ViewEnd::quit:
            return 0;
    }
    return 0;
}

// --keep=DIR: the directory made if missing, and the files no option names put in it.
Status keep_files(DriverOptions& options) {
    const std::string& dir = options.keep_dir;
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error || !std::filesystem::is_directory(dir))
        return Failure{"cannot keep the run's files in " + dir + ": " +
                       (error ? error.message() : std::string("not a directory"))};
    if (options.data_path.empty()) options.data_path = dir + "/run.dat";
    if (options.sites_path.empty()) options.sites_path = dir + "/run.sites";
    if (options.events_path.empty()) options.events_path = dir + "/run.events";
    return {};
}

// Where the summary file is kept: in --keep's directory, or beside the recording --events
// keeps for a report (a window's report needs it, as it needs the sites); empty: nowhere.
std::string kept_summary_path(const DriverOptions& options) {
    if (!options.keep_dir.empty()) return options.keep_dir + "/run.summary";
    if (wants_html(options) && !options.events_path.empty())
        return options.events_path + ".summary";
    return {};
}

// The checks before the program runs, so that a request that cannot be met costs no run:
// --keep's directory, the terminal --live needs, and the report module with the requests it
// judges (loaded into `reports` when the options need it). The exit status when one fails.
std::optional<int> refused_request(DriverOptions& options, const ReportFunctions*& reports) {
    if (!options.keep_dir.empty()) {
        if (Status kept = keep_files(options); !kept.ok()) {
            complain(kept.error());
            return kSetupError;
        }
    }
    if (options.live) {
        if (Status terminal = live::terminal_problem(); !terminal.ok()) {
            complain(terminal.error());
            return kUsageError;
        }
    }
    // A run that only prints the summary never loads the module: nor Cairo, Pango, libdw or
    // protobuf. One that needs it loads it now, before the program runs, so that a module
    // missing or of another build costs no run.
    if (needs_report_module(options)) {
        reports = load_report_module();
        if (reports == nullptr) return kSetupError;
        if (!options.png_path.empty()) {
            if (Status request = reports->graph_request_error(options); !request.ok()) {
                complain(request.error());
                return kUsageError;
            }
        }
        if (Status request = reports->sites_request_error(options); !request.ok()) {
            complain(request.error());
            return kUsageError;
        }
    }
    return std::nullopt;
}

// The collector, found and fit for LD_PRELOAD; else the exit status, having said why.
std::optional<int> missing_collector(std::string& collector_path) {
    const Result<std::string> collector = locate_collector();
    if (!collector.ok()) {
        complain(collector.error());
        return kSetupError;
    }
    collector_path = collector.value();
    if (!can_preload(collector_path)) {
        complain("cannot preload " + collector_path +
                 ": LD_PRELOAD cannot hold a path with spaces or colons; set " +
                 kCollectorOverrideVariable + " to a path without them");
        return kSetupError;
    }
    return std::nullopt;
}

// The files of the run: where the collector writes them, and the temporaries among them,
// gone with the driver.
struct RunFiles {
    TemporaryFile private_data;
    std::string data_path;
    TemporaryFile private_sites;
    std::string sites_path;
    std::string sites_kept_note;
    TemporaryFile private_events;
    TemporaryFile private_summary;
    DriverOptions run_options;
    bool check_profiled = false;
};

// The data file and the sites file: the ones the options name, else kept beside the
// recording, else temporaries when something needs them. The exit status when one fails.
std::optional<int> place_data_and_sites(const DriverOptions& options, RunFiles& files) {
    std::string& data_path = files.data_path;
    if (!options.data_path.empty()) {
        data_path = absolute_path(options.data_path);
    } else if (wants_html(options) && !options.events_path.empty()) {
        // Kept beside the recording, as its sites and summary are: a window's report of
        // the recording draws its timeline from it.
        data_path = absolute_path(options.events_path) + ".dat";
    } else if (!options.png_path.empty() || wants_html(options)) {
        if (Status created = files.private_data.create(); !created.ok()) {
            complain(created.error());
            return kSetupError;
        }
        data_path = files.private_data.path();
    }

    // The report holds the sites and the events too.
    const bool needs_sites = wants_sites(options) || wants_html(options);
    std::string& sites_path = files.sites_path;
    std::string& sites_kept_note = files.sites_kept_note;
    if (!options.sites_path.empty()) {
        sites_path = absolute_path(options.sites_path);
    } else if (needs_sites && !options.events_path.empty()) {
        // The recording kept with --events names its blocks' sites by their ids in this
        // run's sites file: a private one would be gone with the run, leaving memusagestat's
        // pictures of the recording without sites. So it is kept beside the recording.
        sites_path = absolute_path(options.events_path) + ".sites";
        sites_kept_note =
            "the allocation sites of " + options.events_path + " are kept in " +
            options.events_path + ".sites (memusagestat --sites=" + options.events_path +
            ".sites --events=" + options.events_path + "; --sites-file=FILE names another file)";
    } else if (needs_sites || options.stack_peak) {
        if (Status created = files.private_sites.create(); !created.ok()) {
            complain(created.error());
            return kSetupError;
        }
        sites_path = files.private_sites.path();
    }

    if (Status available = file_in_use(
            options,
            options.sites_path.empty() && sites_kept_note.empty() ? std::string() : sites_path);
        !available.ok()) {
        complain(available.error());
        return kSetupError;
    }
    return std::nullopt;
}

// The event recording and the summary file, in files.run_options. The exit status when
// one fails.
std::optional<int> place_events_and_summary(const DriverOptions& options, RunFiles& files) {
    // Lifetimes (--dhat, --long-lived) come from the run's event recording: the one
    // --events keeps, or a private one.
    DriverOptions& run_options = files.run_options;
    run_options = options;
    if (!run_options.events_path.empty()) {
        run_options.events_path = absolute_path(run_options.events_path);
    } else if (wants_events(options) || wants_html(options)) {
        if (Status created = files.private_events.create(); !created.ok()) {
            complain(created.error());
            return kSetupError;
        }
        run_options.events_path = files.private_events.path();
    }
    // The summary's figures, for the report: the collector prints them and writes them here.
    // With -n, the file also tells whether any process was profiled: it starts with a mark
    // that only a profiled process's collector removes (it truncates the file when it
    // starts), whether or not that process gets to write its figures.
    files.check_profiled = !options.progname.empty();
    if (std::string kept = kept_summary_path(options); !kept.empty()) {
        run_options.summary_path = absolute_path(kept);
    } else if (wants_html(options) || files.check_profiled) {
        if (Status created = files.private_summary.create(); !created.ok()) {
            complain(created.error());
            return kSetupError;
        }
        run_options.summary_path = files.private_summary.path();
    }
    if (files.check_profiled) mark_unprofiled(run_options.summary_path);
    return std::nullopt;
}

// The program run with the collector, under the live view if asked; `run_times`: when it
// started and how long it took.
ProgramOutcome run_program(const ProgramLookup& lookup, const DriverOptions& options,
                           const std::vector<std::string>& environment, RunTimes& run_times) {
    timespec started{}, ended{};
    ::clock_gettime(CLOCK_REALTIME, &started);
    ProgramOutcome outcome =
        options.live ? live::run_with_live_view(lookup.path, options.command, environment)
                     : run_child(lookup.path, options.command, environment);
    ::clock_gettime(CLOCK_REALTIME, &ended);
    auto nanoseconds = [](const timespec& t) {
        return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
    };
    run_times.start_ns = nanoseconds(started);
    run_times.duration_ns = nanoseconds(ended) - run_times.start_ns;
    return outcome;
}

// -p: the graph of the data file.
void draw_graph(const ReportFunctions* reports, const DriverOptions& options, const RunFiles& files,
                int& status) {
    GraphResult graph = reports->draw_requested_graph(options, files.data_path);
    if (graph.outcome != GraphOutcome::drawn) complain(graph.message);
    // A picture asked for and not made is a failure, even of a successful program.
    if (graph.outcome == GraphOutcome::failed && status == 0) status = kGraphError;
}

// The sites' reports and exports, and the leaks' exit status.
void write_sites_outputs(const ReportFunctions* reports, const DriverOptions& options,
                         const RunFiles& files, const RunTimes& run_times,
                         const ProgramOutcome& outcome, int& status) {
    SitesOutcome sites;
    const Status made = reports->requested_sites_outputs(
        options, files.sites_path, files.run_options.events_path, run_times, sites);
    if (!sites.report.empty()) print(stderr, "\n" + sites.report);
    if (!sites.warning.empty()) complain(sites.warning);
    if (!made.ok()) complain(made.error());
    // An export or report asked for and not made is a failure, as a graph is.
    if (!made.ok() && !sites.nothing_recorded && status == 0) status = kGraphError;
    if (!files.sites_kept_note.empty()) complain(files.sites_kept_note);
    // Leaks turn the status into --leak-exitcode's, as valgrind's --error-exitcode
    // does; a program killed by a signal keeps 128+N.
    if (sites.leaks_found && options.leak_exitcode.value_or(0) != 0 &&
        outcome.kind == ProgramOutcome::Kind::exited)
        status = static_cast<int>(*options.leak_exitcode);
}

// --html: the report of the run's files.
void write_html(const ReportFunctions* reports, const DriverOptions& options, const RunFiles& files,
                int& status) {
    const DriverOptions& run_options = files.run_options;
    std::vector<std::string> warnings;
    const Status written =
        reports->write_requested_html(options, files.data_path, files.sites_path,
                                      run_options.events_path, run_options.summary_path, warnings);
    for (const std::string& warning : warnings) complain(warning);
    if (!written.ok()) complain(written.error());
    if (!files.sites_kept_note.empty() && !wants_sites(options)) complain(files.sites_kept_note);
    // A report asked for and not written is a failure, even of a successful program.
    if (!written.ok() && status == 0) status = kGraphError;
}

// --attach: the reports asked for checked first, as before a run, so that a request that
// cannot be met costs no attach.
int attach_with_reports(const DriverOptions& options) {
    if (needs_report_module(options)) {
        const ReportFunctions* reports = load_report_module();
        if (reports == nullptr) return kSetupError;
        if (Status request = reports->sites_request_error(options); !request.ok()) {
            complain(request.error());
            return kUsageError;
        }
    }
    return attach::attach_to(*options.attach_pid, options);
}

// --detach: the summary, then the reports the attach asked for, made from the files the
// collector wrote as for a program memusage ran, in the attach's working directory.
int detach_with_reports(pid_t pid) {
    attach::AttachedRun attached;
    int status = attach::detach_from(pid, attached);
    if (status != 0 || attached.arguments.empty()) return status;
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGXFSZ, SIG_IGN);
    ParsedCommandLine asked = parse_command_line(attached.arguments);
    const ReportFunctions* reports = load_report_module();
    if (asked.action == DriverAction::run && reports != nullptr &&
        (attached.directory.empty() || ::chdir(attached.directory.c_str()) == 0)) {
        const DriverOptions& options = asked.options;
        RunFiles files;
        files.data_path = attached.data_path;
        files.sites_path = attached.sites_path;
        files.run_options = options;
        files.run_options.events_path = attached.events_path;
        files.run_options.summary_path = attached.summary_path;
        RunTimes times;
        times.start_ns = attached.attach_ns;
        timespec now{};
        ::clock_gettime(CLOCK_REALTIME, &now);
        times.duration_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000u +
                            static_cast<uint64_t>(now.tv_nsec) - attached.attach_ns;
        // Still running, as far as --leak-exitcode goes: it turns the detach's status.
        const ProgramOutcome outcome{ProgramOutcome::Kind::exited, 0, false};
        if (wants_sites(options))
            write_sites_outputs(reports, options, files, times, outcome, status);
        if (wants_html(options)) write_html(reports, options, files, status);
    } else {
        if (reports != nullptr)
            complain("the reports of the attach cannot be made in " + attached.directory);
        status = kSetupError;
    }
    for (const std::string& file : attached.private_files) ::unlink(file.c_str());
    return status;
}

int run(const DriverOptions& given) {
    DriverOptions options = given;
    if (options.list_processes) return list_processes();
    if (options.watch_pid) return watch(*options.watch_pid);
    if (options.attach_pid) return attach_with_reports(options);
    if (options.detach_pid) return detach_with_reports(*options.detach_pid);
    const ReportFunctions* reports = nullptr;
    if (std::optional<int> status = refused_request(options, reports)) return *status;
    std::string collector_path;
    if (std::optional<int> status = missing_collector(collector_path)) return *status;

    const std::string& program = options.command.front();
    ProgramLookup lookup = find_program(program, std::getenv("PATH"));
    if (lookup.path.empty()) {
        ProgramOutcome never_ran{ProgramOutcome::Kind::not_run, lookup.error, false};
        print(stderr, describe_outcome(program, never_ran) + "\n");
        return driver_exit_status(never_ran);
    }

    PreloadObstacle obstacle = preload_obstacle(lookup.path);
    if (obstacle != PreloadObstacle::none) {
        complain("'" + program + "' " + describe(obstacle) +
                 ", so LD_PRELOAD cannot load the collector into it: it runs, but no memory "
                 "profile will come");
    }

    RunFiles files;
    if (std::optional<int> status = place_data_and_sites(options, files)) return *status;
    if (std::optional<int> status = place_events_and_summary(options, files)) return *status;
    const DriverOptions& run_options = files.run_options;

    std::vector<std::string> environment = child_environment(
        inherited_environment(), run_options, collector_path, files.data_path, files.sites_path);
    RunTimes run_times;
    ProgramOutcome outcome = run_program(lookup, options, environment, run_times);
    // Messages after the run must not kill the driver before it cleans up, should the
    // reader of standard error be gone; nor may a file size limit (ulimit -f) while it
    // writes a picture or a report: that write fails, and says so.
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGXFSZ, SIG_IGN);
    if (std::string message = describe_outcome(program, outcome, lookup.path); !message.empty()) {
        print(stderr, message + "\n");
    }

    int status = driver_exit_status(outcome);
    bool may_have_profile =
        obstacle == PreloadObstacle::none && outcome.kind != ProgramOutcome::Kind::not_run;
    if (files.check_profiled && may_have_profile && still_unprofiled(run_options.summary_path)) {
        complain("no process was profiled: none of those the run started is named '" +
                 options.progname + "' (-n takes the program's file name, without its directory)");
        // No figures for the report either.
        [[maybe_unused]] int ignored = ::truncate(run_options.summary_path.c_str(), 0);
    }
    if (!options.png_path.empty() && may_have_profile) draw_graph(reports, options, files, status);
    if ((wants_sites(options) || options.stack_peak) && may_have_profile)
        write_sites_outputs(reports, options, files, run_times, outcome, status);
    if (wants_html(options) && may_have_profile) write_html(reports, options, files, status);
    return status;
}

}  // namespace
}  // namespace memusage

int main(int argc, char** argv) {
    using namespace memusage;
    std::vector<std::string> arguments(argv + 1, argv + argc);
    ParsedCommandLine command_line = parse_command_line(arguments);
    switch (command_line.action) {
        case DriverAction::help:
            return printed_whole(help_text());
        case DriverAction::usage:
            return printed_whole(usage_text());
        case DriverAction::version:
            return printed_whole(version_text());
        case DriverAction::fail:
            print(stderr, command_line.error + "\n");
            print(stderr, try_help_text());
            return kUsageError;
        case DriverAction::run:
            break;
    }
    try {
        return run(command_line.options);
    } catch (const std::exception& error) {
        // run() has unwound by now, so its temporary file is gone too.
        complain(error.what());
        return kSetupError;
    }
}
