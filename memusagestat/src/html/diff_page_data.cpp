// SPDX-License-Identifier: MIT
#include "html/diff_page_data.h"

#include <sys/stat.h>

#include <memory>
#include <optional>
#include <unordered_map>

#include "diff_page.h"
#include "html/html_report.h"
#include "html/page_timeline.h"
#include "html/run_clock.h"
#include "output/whole_file.h"
#include "read/mapped_data_file.h"
#include "read/summary_reader.h"
#include "reports/site_diff.h"
#include "sites/definitions.h"
#include "sites/site_names.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

bool regular_file(const std::string& path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0;
}

// One run's files, as far as the page uses them.
struct PageRun {
    std::string label;  // "A" or "B"
    std::string path;   // as given
    bool with_sites = false;
    DiffRun sites;
    std::string data_path, summary_path;  // "" when not found
    MappedDataFile data;
    RunSummary summary;
    RunClock clock;
};

Status open_run(PageRun& run, bool sites_file, std::vector<std::string>& notes) {
    run.with_sites = sites_file;
    if (sites_file) {
        if (Status loaded = read_diff_run(run.path, run.sites); !loaded.ok()) return loaded;
        run.data_path = file_beside(run.path, ".dat");
    } else {
        run.data_path = run.path;
    }
    if (!run.data_path.empty()) {
        if (Status opened = run.data.open(run.data_path); !opened.ok()) {
            if (!sites_file) return Failure{run.data_path + ": " + opened.error()};
            notes.push_back("Run " + run.label + "'s data file " + run.data_path +
                            " could not be read (" + opened.error() + "): no timeline.");
            run.data_path.clear();
        }
    } else {
        notes.push_back("Run " + run.label + " has no data file " + name_beside(run.path, ".dat") +
                        " beside its sites file: no timeline.");
    }
    run.summary_path = file_beside(run.path, ".summary");
    if (!run.summary_path.empty() && !read_summary_file(run.summary_path, run.summary).ok())
        run.summary_path.clear();
    RunClockSources sources;
    if (!run.data_path.empty()) sources.data = &run.data.profile().header;
    if (!run.summary_path.empty()) sources.summary = &run.summary;
    if (run.with_sites) sources.sites_machine = &run.sites.profile.machine;
    run.clock = run_clock(sources);
    return {};
}

nlohmann::json run_json(PageRun& run, bool relative) {
    if (relative) run.clock.seconds_per_cycle = 0;
    std::string program = run.with_sites ? program_name(run.sites.profile) : "";
    const std::string command = run.summary_path.empty() ? "" : run.summary.command;
    if (program.empty() && !command.empty()) {
        program = command.substr(0, command.find(' '));
        program = program.substr(program.rfind('/') + 1);
    }
    nlohmann::json json = {
        {"label", run.label},
        {"path", run.path},
        {"program", program},
        {"command", command},
        {"data_file", run.data_path.empty() ? nlohmann::json() : nlohmann::json(run.data_path)},
        {"summary_file",
         run.summary_path.empty() ? nlohmann::json() : nlohmann::json(run.summary_path)},
        {"seconds", run.data_path.empty() ? 0.0 : run.clock.seconds(run.clock.end)},
        {"heap_peak", run.with_sites           ? run.sites.profile.heap_peak
                      : !run.data_path.empty() ? run.data.profile().header.heap_peak
                                               : 0},
        {"timeline", run.data_path.empty() ? nlohmann::json()
                                           : timeline_json(run.data, run.clock, std::nullopt)},
    };
    return json;
}

nlohmann::json totals_json(const std::vector<DiffTotal>& totals) {
    nlohmann::json rows = nlohmann::json::array();
    for (const DiffTotal& row : totals)
        rows.push_back({{"label", row.label}, {"a", row.before}, {"b", row.after}});
    return rows;
}

// Each distinct stack line once (`frames`), each site's stack as their indices.
class LineTable {
  public:
    explicit LineTable(nlohmann::json& frames) : frames_(frames) {
        frames_ = nlohmann::json::array();
    }
    size_t index_of(const std::string& line) {
        auto [found, inserted] = index_.try_emplace(line, index_.size());
        if (inserted) frames_.push_back(line);
        return found->second;
    }

  private:
    nlohmann::json& frames_;
    std::unordered_map<std::string, size_t> index_;
};

nlohmann::json figures_json(const ShownSite& figures) {
    nlohmann::json json = nlohmann::json::object();
    for (const DiffMeasure& measure : diff_measures()) json[measure.key] = measure.value(figures);
    return json;
}

nlohmann::json sites_json(const std::vector<MatchedSite>& matched, LineTable& lines) {
    nlohmann::json rows = nlohmann::json::array();
    for (const MatchedSite& site : matched) {
        const ShownSite& shown = site.shown();
        nlohmann::json stack = nlohmann::json::array();
        for (size_t i = 0; i < shown.line_count(); ++i)
            stack.push_back(lines.index_of(shown.line(i)));
        rows.push_back({
            {"stack", std::move(stack)},
            {"via", shown.via},
            {"cut_at", shown.cut_at},
            {"in_a", site.before != nullptr},
            {"in_b", site.after != nullptr},
            {"a", figures_json(site.before_figures)},
            {"b", figures_json(site.after_figures)},
        });
    }
    return rows;
}

nlohmann::json measures_json() {
    nlohmann::json measures = nlohmann::json::array();
    for (const DiffMeasure& measure : diff_measures())
        measures.push_back({{"key", measure.key},
                            {"title", measure.title},
                            {"unit_one", measure.unit_one},
                            {"unit_many", measure.unit_many}});
    return measures;
}

}  // namespace

std::string name_beside(const std::string& path, const std::string& extension) {
    std::string stem = path;
    for (const char* own : {".sites", ".dat"})
        if (stem.ends_with(own) && stem.size() > std::string(own).size()) {
            stem.resize(stem.size() - std::string(own).size());
            break;
        }
    return stem + extension;
}

std::string file_beside(const std::string& path, const std::string& extension) {
    const std::string beside = name_beside(path, extension);
    return beside != path && regular_file(beside) ? beside : "";
}

Status build_diff_page_data(const DiffPageRequest& request, nlohmann::json& data,
                            std::vector<std::string>& warnings) {
    if (const std::string refused = refused_kind(request.before, request.after); !refused.empty())
        return Failure{refused};
    const bool sites_before = is_sites_file(request.before),
               sites_after = is_sites_file(request.after);
    // In the text --diff's words.
    if (sites_before != sites_after)
        return Failure{"--diff compares two sites files or two data files: " +
                       (sites_before ? request.before : request.after) + " is a sites file, " +
                       (sites_before ? request.after : request.before) + " is not"};
    std::vector<std::string> notes;
    auto a = std::make_unique<PageRun>(), b = std::make_unique<PageRun>();
    a->label = "A";
    a->path = request.before;
    b->label = "B";
    b->path = request.after;
    if (Status opened = open_run(*a, sites_before, notes); !opened.ok()) return opened;
    if (Status opened = open_run(*b, sites_after, notes); !opened.ok()) return opened;

    data = {{"format", "memusage-diff-report"}, {"version", 1}};
    data["kind"] = sites_before ? "sites" : "data";
    data["measures"] = measures_json();
    if (sites_before) {
        const std::string program_a = program_of(a->sites.profile),
                          program_b = program_of(b->sites.profile);
        if (program_a != program_b) {
            const std::string warning = "The runs are of different programs (" + program_a + ", " +
                                        program_b +
                                        "): their sites match only where the same functions "
                                        "allocate.";
            warnings.push_back(warning);
            notes.push_back(warning);
        }
        data["totals"] = totals_json(diff_totals(a->sites, b->sites));
        LineTable lines(data["frames"]);
        data["sites"] = sites_json(match_sites(a->sites, b->sites), lines);
    } else {
        data["totals"] = totals_json(
            diff_data_totals(a->data.profile().header, a->data.profile().events.size(),
                             b->data.profile().header, b->data.profile().events.size()));
        data["frames"] = nlohmann::json::array();
        data["sites"] = nullptr;
        notes.push_back(
            "Data files hold totals only: give sites files (memusage --sites-file) for the "
            "sites.");
    }
    // One time axis for both: seconds when both runs' files give their clock's rate.
    const bool relative = a->clock.relative() || b->clock.relative();
    data["time_unit"] = relative ? "share" : "seconds";
    if (relative && (!a->data_path.empty() || !b->data_path.empty()))
        notes.push_back(
            "Times are fractions of each run: a run's files hold no rate of its clock (its "
            "summary file, NAME.summary beside it, gives it).");
    data["runs"] = {run_json(*a, relative), run_json(*b, relative)};
    data["notes"] = notes;
    return {};
}

Status write_diff_page(const DiffPageRequest& request, const std::string& out_path,
                       std::vector<std::string>& warnings) {
    nlohmann::json data;
    if (Status built = build_diff_page_data(request, data, warnings); !built.ok()) return built;
    return write_whole_file(out_path, page_with_data(memusage::report::diff_page_template(), data));
}

}  // namespace memusagestat
