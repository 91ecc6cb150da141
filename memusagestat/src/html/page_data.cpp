// SPDX-License-Identifier: MIT
#include "html/page_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>

#include "html/page_stack_peaks.h"
#include "html/page_summary.h"
#include "read/event_scan.h"
#include "read/mapped_data_file.h"
#include "read/sites_reader.h"
#include "read/summary_reader.h"
#include "sites/site_names.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

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

// The run's files the request names, open; a file not given, or given empty, is without.
struct RunFiles {
    MappedDataFile data_file;
    bool with_data = false;
    SitesProfile sites_profile;
    bool with_sites = false;
    EventsReader reader;
    bool with_events = false;
    RunSummary summary;
    bool with_summary = false;
};

// The report's notes, and the warnings among them, which the user is told as well.
struct Notes {
    std::vector<std::string>& warnings;
    std::vector<std::string> lines;

    void push_back(const std::string& text) { lines.push_back(text); }
    void warn(const std::string& text) {
        warnings.push_back(text);
        lines.push_back(text);
    }
};

Status open_data_file(const HtmlReportRequest& request, RunFiles& files, Notes& notes) {
    MappedDataFile& data_file = files.data_file;
    files.with_data = !request.data_path.empty();
    if (files.with_data) {
        if (Status opened = data_file.open(request.data_path); !opened.ok())
            return Failure{request.data_path + ": " + opened.error()};
        const Profile& profile = data_file.profile();
        if (profile.ignored_tail_bytes != 0 || profile.header.repaired)
            notes.push_back(
                "The data file was cut short (the run was killed): its peaks were "
                "rebuilt from its records.");
    }
    return {};
}

Status open_sites_file(const HtmlReportRequest& request, RunFiles& files, Notes& notes) {
    files.with_sites = !request.sites_path.empty();
    if (files.with_sites && empty_file(request.sites_path)) {
        notes.warn("The sites file " + request.sites_path +
                   " is empty: the run did not write it, so the report has no sites.");
        files.with_sites = false;
    } else if (files.with_sites) {
        if (Status loaded = read_sites_file(request.sites_path, files.sites_profile); !loaded.ok())
            return loaded;
    }
    return {};
}

Status open_events_file(const HtmlReportRequest& request, RunFiles& files, Notes& notes) {
    EventsReader& reader = files.reader;
    const SitesProfile& sites_profile = files.sites_profile;
    files.with_events = !request.events_path.empty();
    if (files.with_events && empty_file(request.events_path)) {
        notes.warn("The event recording " + request.events_path +
                   " is empty: the run did not write it, so the report has no events.");
        files.with_events = false;
    } else if (files.with_events) {
        if (Status loaded = open_recording(reader, request.events_path); !loaded.ok())
            return loaded;
        if (files.with_sites && reader.pid() != sites_profile.pid)
            notes.warn(request.events_path + " is the recording of another run (process " +
                       std::to_string(reader.pid()) + "; the sites file's is " +
                       std::to_string(sites_profile.pid) + "): its sites may be named wrongly.");
        else if (files.with_sites && !reader.has_sites())
            notes.push_back(
                "The event recording was made without allocation sites: its events "
                "name none.");
    }
    return {};
}

Status open_summary_file(const HtmlReportRequest& request, RunFiles& files, Notes& notes) {
    RunSummary& summary = files.summary;
    files.with_summary = !request.summary_path.empty();
    if (files.with_summary && empty_file(request.summary_path)) {
        notes.warn("The summary file " + request.summary_path +
                   " is empty: the run did not write it, so the report has no summary.");
        files.with_summary = false;
    } else if (files.with_summary) {
        if (Status loaded = read_summary_file(request.summary_path, summary); !loaded.ok())
            return loaded;
        const uint64_t other_pid = files.with_sites    ? files.sites_profile.pid
                                   : files.with_events ? files.reader.pid()
                                                       : 0;
        if (other_pid != 0 && summary.pid != other_pid)
            notes.warn(request.summary_path + " is the summary of another run (process " +
                       std::to_string(summary.pid) + "; the other files' is " +
                       std::to_string(other_pid) + ").");
    }
    return {};
}

Status open_files(const HtmlReportRequest& request, RunFiles& files, Notes& notes) {
    if (Status opened = open_data_file(request, files, notes); !opened.ok()) return opened;
    if (Status opened = open_sites_file(request, files, notes); !opened.ok()) return opened;
    if (Status opened = open_events_file(request, files, notes); !opened.ok()) return opened;
    return open_summary_file(request, files, notes);
}

// One clock for every file: the collector's counter, and the data file's times on it.
// `recording_events`: the events of the recording, for the events' buckets.
RunClock run_clock_of(RunFiles& files, uint64_t& recording_events, Notes& notes) {
    EventsReader& reader = files.reader;
    recording_events = 0;
    if (files.with_events) {
        if (reader.seconds_per_cycle() <= 0 || !reader.complete()) {
            // A cut recording knows its rate and its end only after a pass.
            recording_events = scan_events(reader).events;
        } else {
            recording_events = reader.trailer_event_count();
        }
    }
    RunClockSources clock_sources;
    if (files.with_events) clock_sources.events = &reader;
    if (files.with_data) clock_sources.data = &files.data_file.profile().header;
    if (files.with_summary) clock_sources.summary = &files.summary;
    if (files.with_sites) clock_sources.sites_machine = &files.sites_profile.machine;
    const RunClock clock = run_clock(clock_sources);
    if (clock.relative() && (files.with_data || files.with_events))
        notes.push_back(
            "Times are fractions of the run: the files hold no rate of the clock "
            "(an event recording, --events, gives it).");
    return clock;
}

Status window_outside_run(const HtmlReportRequest& request, const RunFiles& files,
                          const RunClock& clock) {
    if (request.window && (files.with_data || files.with_events) &&
        request.window->start > clock.seconds(clock.end)) {
        char range[64];
        std::snprintf(range, sizeof range, "%.6f s", clock.seconds(clock.end));
        return Failure{"the window " + describe(*request.window) +
                       " is outside the run, which lasted " + range +
                       (clock.relative() ? " (a share of the run: its files hold no clock)" : "")};
    }
    return {};
}

// The report's `run`, without its notes.
nlohmann::json run_json(const HtmlReportRequest& request, const RunFiles& files,
                        const RunClock& clock, Notes& notes) {
    const SitesProfile& sites_profile = files.sites_profile;
    // The driver's words, else the command line the summary file keeps.
    const std::string command = !request.command.empty() ? request.command
                                : files.with_summary     ? files.summary.command
                                                         : "";
    nlohmann::json run = {
        {"program", ""},
        {"command", command},
        {"pid", nullptr},
        {"seconds", clock.seconds(clock.end)},
        // Without a rate of the clock every time is a share of the run (0 to 1).
        {"time_unit", clock.relative() ? "share" : "seconds"},
        {"ended_by_crash", files.with_sites && sites_profile.ended_by_crash},
        {"sample_interval", files.with_sites ? sites_profile.sample_interval : 0},
    };
    if (files.with_sites) {
        run["program"] = program_name(sites_profile);
        run["pid"] = sites_profile.pid;
    } else if (files.with_events) {
        run["pid"] = files.reader.pid();
    } else if (files.with_summary) {
        run["pid"] = files.summary.pid;
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
    return run;
}

// How to write a report of one window with every event (ReportEventsInput::window_command).
std::string window_advice(const HtmlReportRequest& request, const RunFiles& files) {
    if (request.files_private && !request.rerun.empty()) {
        return "This run's files were not kept: for every event of a window, run it again "
               "keeping them, " +
               request.rerun + ", then " +
               window_command(request.rerun_data, request.rerun_sites, request.rerun_events,
                              request.rerun_summary) +
               ".";
    } else if (request.files_private) {
        return "This run's files were not kept: for every event of a window, run it again with "
               "memusage --keep=DIR --html=FILE, then memusagestat --html-window as the "
               "notice of that report says.";
    } else {
        return "For every event of a window: " +
               window_command(files.with_data ? request.data_path : "",
                              files.with_sites ? request.sites_path : "", request.events_path,
                              files.with_summary ? request.summary_path : "") +
               ".";
    }
}

// The report's `events`, `blocks`, `threads` and `buckets`, from the recording.
void add_events(const HtmlReportRequest& request, const ReportBounds& bounds, RunFiles& files,
                const RunClock& clock, uint64_t recording_events, ReportSites* sites,
                nlohmann::json& data, Notes& notes) {
    EventsReader& reader = files.reader;
    ReportEventsInput input;
    input.clock = clock;
    input.window = request.window;
    input.expected_events = recording_events;
    input.bounds = bounds.events;
    input.window_command = window_advice(request, files);
    if (sites && reader.has_sites()) {
        ReportSites* shown = sites;
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
    notes.lines.insert(notes.lines.end(), events.notes.begin(), events.notes.end());
}

// The report's `sources`: the files the sites name, in what the page has left of its budget
// once everything else is in it. The rest's size is measured (a dump, a tenth of a second for
// a 15 MB report) only when the sources take more than 1 MB: below, the other bounds keep the
// page far under its budget.
void add_sources(const ReportBounds& bounds, FrameTable& table, nlohmann::json& data) {
    constexpr size_t kPageBytes = size_t{25} << 20;
    constexpr size_t kPageMargin = size_t{2} << 20;  // the page itself, its notes, stack peaks
    constexpr size_t kMeasuredAbove = size_t{1} << 20;
    nlohmann::json sources = sources_json(data["sites"], data["frames"], table.sources(),
                                          bounds.sources, std::numeric_limits<size_t>::max());
    size_t embedded = 0;
    for (const nlohmann::json& file : sources)
        if (file["lines"].is_array()) embedded += file["bytes"].get<size_t>();
    if (embedded > kMeasuredAbove) {
        const size_t used =
            data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
        const size_t room = used + kPageMargin < kPageBytes ? kPageBytes - kPageMargin - used : 0;
        sources =
            sources_json(data["sites"], data["frames"], table.sources(), bounds.sources, room);
    }
    data["sources"] = std::move(sources);
}

// The report's `frames`, `sites` and `stack_peaks`, from the sites file.
void add_sites(const HtmlReportRequest& request, const ReportBounds& bounds,
               const SitesProfile& sites_profile, Symbolizer& symbolizer, ReportSites& sites,
               const RunClock& clock, nlohmann::json& data, Notes& notes) {
    FrameTable table(bounds.sites.frames, data["frames"], SourceLocator(request.source_dir));
    sites.write(table, data["sites"], notes.lines);
    add_sources(bounds, table, data);
    data["stack_peaks"] =
        stack_peaks_json(sites_profile, symbolizer, table, clock, data["threads"]);
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
    add_profile_notes(profile_notes(sites_profile, symbolizer), notes.lines);
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

Status build_report_data(const HtmlReportRequest& request, const ReportBounds& bounds,
                         nlohmann::json& data, std::vector<std::string>& warnings) {
    if (request.data_path.empty() && request.sites_path.empty() && request.events_path.empty() &&
        request.summary_path.empty())
        return Failure{
            "the report needs a run's files: a data file, --sites, --events or --summary"};
    Notes notes{warnings, {}};
    RunFiles files;
    if (Status opened = open_files(request, files, notes); !opened.ok()) return opened;

    uint64_t recording_events = 0;
    const RunClock clock = run_clock_of(files, recording_events, notes);
    if (Status inside = window_outside_run(request, files, clock); !inside.ok()) return inside;

    // The window, counted once for the events' buckets.
    if (files.with_events && request.window) {
        recording_events = 0;
        files.reader.rewind();
        RecordedEvent event;
        while (files.reader.next(event))
            recording_events += request.window->holds(clock.seconds(event.time));
    }

    nlohmann::json run = run_json(request, files, clock, notes);

    data = {{"format", "memusage-report"}, {"version", 1}};
    data["summary"] = files.with_summary
                          ? summary_json(files.summary.stats, files.summary.mmap_rows)
                      : files.with_data ? peaks_only_summary_json(files.data_file.profile().header)
                                        : nlohmann::json();
    data["timeline"] = files.with_data
                           ? timeline_json(files.data_file, clock, request.window, bounds.timeline)
                           : nlohmann::json();

    std::optional<Symbolizer> symbolizer;
    std::optional<ReportSites> sites;
    if (files.with_sites) {
        symbolizer.emplace(files.sites_profile.modules);
        sites.emplace(files.sites_profile, *symbolizer, bounds.sites);
        // Every site is named: the replay's memory need not hold the debug information too.
        if (files.with_events) symbolizer->close_files();
    }
    data["threads"] = nlohmann::json::array();
    data["events"] = nullptr;
    data["blocks"] = nullptr;
    data["buckets"] = nullptr;
    if (files.with_events)
        add_events(request, bounds, files, clock, recording_events, sites ? &*sites : nullptr, data,
                   notes);
    data["frames"] = nlohmann::json::array();
    data["sites"] = nullptr;
    data["stack_peaks"] = nullptr;
    data["sources"] = nullptr;
    if (sites)
        add_sites(request, bounds, files.sites_profile, *symbolizer, *sites, clock, data, notes);
    run["notes"] = notes.lines;
    data["run"] = std::move(run);
    return {};
}

}  // namespace memusagestat
