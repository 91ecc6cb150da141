#include "html/page_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "html/page_stack_peaks.h"
#include "html/page_summary.h"
#include "read/event_scan.h"
#include "read/mapped_data_file.h"
#include "read/sites_reader.h"
#include "read/summary_reader.h"
#include "sites/site_names.h"

namespace memusagestat {
namespace {

bool empty_file(const std::string& path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && status.st_size == 0;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The notes of profile_notes ("\nNote: ...\n" lines), one a note.
void add_profile_notes(const std::string& text, std::vector<std::string>& notes) {
    size_t at = 0;
    while ((at = text.find("Note: ", at)) != std::string::npos) {
        const size_t end = text.find('\n', at);
        std::string note = text.substr(at + 6, end - at - 6);
        if (!note.empty()) note[0] = static_cast<char>(std::toupper(note[0]));
        notes.push_back(note + ".");
        at = end;
    }
}

// The command that writes the report of one window of the run from its files.
std::string window_command(const std::string& data, const std::string& sites,
                           const std::string& events, const std::string& summary) {
    std::string command = "memusagestat --html=window.html --html-window=START..END";
    if (!data.empty()) command += " " + shell_word(data);
    if (!sites.empty()) command += " --sites=" + shell_word(sites);
    if (!events.empty()) command += " --events=" + shell_word(events);
    if (!summary.empty()) command += " --summary=" + shell_word(summary);
    return command;
}

}  // namespace

std::string shell_word(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::strchr("_@%+=:,./-", c) != nullptr;
    });
    if (plain) return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string build_report_data(const HtmlReportRequest& request, const ReportBounds& bounds,
                              nlohmann::json& data, std::vector<std::string>& warnings) {
    if (request.data_path.empty() && request.sites_path.empty() && request.events_path.empty() &&
        request.summary_path.empty())
        return "the report needs a run's files: a data file, --sites, --events or --summary";
    std::vector<std::string> notes;
    auto warn = [&](const std::string& text) {
        warnings.push_back(text);
        notes.push_back(text);
    };

    MappedDataFile data_file;
    const bool with_data = !request.data_path.empty();
    if (with_data) {
        if (std::string error = data_file.open(request.data_path); !error.empty())
            return request.data_path + ": " + error;
        const Profile& profile = data_file.profile();
        if (profile.ignored_tail_bytes != 0 || profile.header.repaired)
            notes.push_back(
                "The data file was cut short (the run was killed): its peaks were "
                "rebuilt from its records.");
    }

    SitesProfile sites_profile;
    bool with_sites = !request.sites_path.empty();
    if (with_sites && empty_file(request.sites_path)) {
        warn("The sites file " + request.sites_path +
             " is empty: the run did not write it, so the report has no sites.");
        with_sites = false;
    } else if (with_sites) {
        if (std::string error = read_sites_file(request.sites_path, sites_profile); !error.empty())
            return error;
    }

    EventsReader reader;
    bool with_events = !request.events_path.empty();
    if (with_events && empty_file(request.events_path)) {
        warn("The event recording " + request.events_path +
             " is empty: the run did not write it, so the report has no events.");
        with_events = false;
    } else if (with_events) {
        if (std::string error = open_recording(reader, request.events_path); !error.empty())
            return error;
        if (with_sites && reader.pid() != sites_profile.pid)
            warn(request.events_path + " is the recording of another run (process " +
                 std::to_string(reader.pid()) + "; the sites file's is " +
                 std::to_string(sites_profile.pid) + "): its sites may be named wrongly.");
        else if (with_sites && !reader.has_sites())
            notes.push_back(
                "The event recording was made without allocation sites: its events "
                "name none.");
    }

    RunSummary summary;
    bool with_summary = !request.summary_path.empty();
    if (with_summary && empty_file(request.summary_path)) {
        warn("The summary file " + request.summary_path +
             " is empty: the run did not write it, so the report has no summary.");
        with_summary = false;
    } else if (with_summary) {
        if (std::string error = read_summary_file(request.summary_path, summary); !error.empty())
            return error;
        const uint64_t other_pid = with_sites ? sites_profile.pid : with_events ? reader.pid() : 0;
        if (other_pid != 0 && summary.pid != other_pid)
            warn(request.summary_path + " is the summary of another run (process " +
                 std::to_string(summary.pid) + "; the other files' is " +
                 std::to_string(other_pid) + ").");
    }

    // One clock for every file: the collector's counter, and the data file's times on it.
    uint64_t recording_events = 0;
    if (with_events) {
        if (reader.seconds_per_cycle() <= 0 || !reader.complete()) {
            // A cut recording knows its rate and its end only after a pass.
            recording_events = scan_events(reader).events;
        } else {
            recording_events = reader.trailer_event_count();
        }
    }
    RunClockSources clock_sources;
    if (with_events) clock_sources.events = &reader;
    if (with_data) clock_sources.data = &data_file.profile().header;
    if (with_summary) clock_sources.summary = &summary;
    if (with_sites) clock_sources.sites_machine = &sites_profile.machine;
    const RunClock clock = run_clock(clock_sources);
    if (clock.relative() && (with_data || with_events))
        notes.push_back(
            "Times are fractions of the run: the files hold no rate of the clock "
            "(an event recording, --events, gives it).");

    if (request.window && (with_data || with_events) &&
        request.window->start > clock.seconds(clock.end)) {
        char range[64];
        std::snprintf(range, sizeof range, "%.6f s", clock.seconds(clock.end));
        return "the window " + describe(*request.window) + " is outside the run, which lasted " +
               range + (clock.relative() ? " (a share of the run: its files hold no clock)" : "");
    }

    // The window, counted once for the events' buckets.
    if (with_events && request.window) {
        recording_events = 0;
        reader.rewind();
        RecordedEvent event;
        while (reader.next(event))
            recording_events += request.window->holds(clock.seconds(event.time));
    }

    // The driver's words, else the command line the summary file keeps.
    const std::string command = !request.command.empty() ? request.command
                                : with_summary           ? summary.command
                                                         : "";
    nlohmann::json run = {
        {"program", ""},
        {"command", command},
        {"pid", nullptr},
        {"seconds", clock.seconds(clock.end)},
        // Without a rate of the clock every time is a share of the run (0 to 1).
        {"time_unit", clock.relative() ? "share" : "seconds"},
        {"ended_by_crash", with_sites && sites_profile.ended_by_crash},
        {"sample_interval", with_sites ? sites_profile.sample_interval : 0},
    };
    if (with_sites) {
        run["program"] = program_name(sites_profile);
        run["pid"] = sites_profile.pid;
    } else if (with_events) {
        run["pid"] = reader.pid();
    } else if (with_summary) {
        run["pid"] = summary.pid;
    }
    if (run["program"] == "" && !command.empty())
        run["program"] = base_name(command.substr(0, command.find(' ')));
    if (request.window) {
        const double end = clock.seconds(clock.end);
        notes.push_back("The report covers the window " + describe(*request.window) +
                        " of the run, whose figures of the sites and summary are the whole "
                        "run's.");
        run["window"] = {{"start", request.window->start},
                         {"end", request.window->end ? *request.window->end : end}};
    }

    data = {{"format", "memusage-report"}, {"version", 1}};
    data["summary"] = with_summary ? summary_json(summary.stats, summary.mmap_rows)
                      : with_data  ? peaks_only_summary_json(data_file.profile().header)
                                   : nlohmann::json();
    data["timeline"] = with_data ? timeline_json(data_file, clock, request.window, bounds.timeline)
                                 : nlohmann::json();

    std::optional<Symbolizer> symbolizer;
    std::optional<ReportSites> sites;
    if (with_sites) {
        symbolizer.emplace(sites_profile.modules);
        sites.emplace(sites_profile, *symbolizer, bounds.sites);
    }
    data["threads"] = nlohmann::json::array();
    data["events"] = nullptr;
    data["blocks"] = nullptr;
    data["buckets"] = nullptr;
    if (with_events) {
        ReportEventsInput input;
        input.clock = clock;
        input.window = request.window;
        input.expected_events = recording_events;
        input.bounds = bounds.events;
        if (request.files_private && !request.rerun.empty()) {
            input.window_command =
                "This run's files were not kept: for every event of a window, run it again "
                "keeping them, " +
                request.rerun + ", then " +
                window_command(request.rerun_data, request.rerun_sites, request.rerun_events,
                               request.rerun_summary) +
                ".";
        } else if (request.files_private) {
            input.window_command =
                "This run's files were not kept: for every event of a window, run it again with "
                "memusage --keep=DIR --html=FILE, then memusagestat --html-window as the "
                "notice of that report says.";
        } else {
            input.window_command =
                "For every event of a window: " +
                window_command(with_data ? request.data_path : "",
                               with_sites ? request.sites_path : "", request.events_path,
                               with_summary ? request.summary_path : "") +
                ".";
        }
        if (sites && reader.has_sites()) {
            ReportSites* shown = &*sites;
            input.site_of = [shown](uint32_t id) { return shown->index_of(id); };
            // The collector's counts, exact for the whole run, when the sites file has them.
            if (!shown->temporary_known()) input.temporary = &shown->temporary();
            input.kept_by_runtime = [shown](uint32_t id) { return shown->kept_by_runtime(id); };
        }
        ReportEvents events = report_events(reader, input);
        data["events"] = std::move(events.events);
        data["blocks"] = std::move(events.blocks);
        data["threads"] = std::move(events.threads);
        data["buckets"] = std::move(events.buckets);
        notes.insert(notes.end(), events.notes.begin(), events.notes.end());
    }
    data["frames"] = nlohmann::json::array();
    data["sites"] = nullptr;
    data["stack_peaks"] = nullptr;
    if (sites) {
        FrameTable table(bounds.sites.frames, data["frames"]);
        sites->write(table, data["sites"], notes);
        data["stack_peaks"] =
            stack_peaks_json(sites_profile, *symbolizer, table, clock, data["threads"]);
        if (table.full())
            notes.push_back("Some stacks are cut: the report holds at most " +
                            std::to_string(bounds.sites.frames) + " distinct frames.");
        if (!sites_profile.stack_peaks.empty() && clock.relative())
            notes.push_back(
                "The stack peaks' times are not given: the report's clock has no rate "
                "(a summary file or an event recording gives it).");
        if (sites_profile.stack_peaks_dropped)
            notes.push_back(
                "More threads reached a stack peak than the collector keeps: some ended "
                "threads' smaller peaks are missing.");
        add_profile_notes(profile_notes(sites_profile, *symbolizer), notes);
    }
    run["notes"] = notes;
    data["run"] = std::move(run);
    return {};
}

}  // namespace memusagestat
