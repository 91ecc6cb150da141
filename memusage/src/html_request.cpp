// SPDX-License-Identifier: MIT
#include "html_request.h"

#include <sys/stat.h>

#include <vector>

#include "html/html_report.h"

namespace memusage {
namespace {

// The collector writes nothing when the program was not the profiled one (-n) or never
// ran its exit handlers: an empty file then stands for none.
std::string written_or_none(const std::string& path) {
    struct stat status {};
    if (path.empty() || ::stat(path.c_str(), &status) != 0 || status.st_size == 0) return {};
    return path;
}

}  // namespace

Status write_requested_html(const DriverOptions& options, const std::string& data_path,
                            const std::string& sites_path, const std::string& events_path,
                            const std::string& summary_path, std::vector<std::string>& warnings) {
    memusagestat::HtmlReportRequest request;
    request.data_path = written_or_none(data_path);
    request.sites_path = written_or_none(sites_path);
    request.events_path = written_or_none(events_path);
    request.summary_path = written_or_none(summary_path);
    request.source_dir = options.source_dir;
    // The recording is a temporary unless --events or --keep kept it: a window's report
    // needs it. The notice then gives this run's command again, keeping its files.
    request.files_private = options.events_path.empty();
    if (request.files_private) {
        // --keep puts there the files -d and --sites-file do not name elsewhere.
        const std::string dir = "memusage-run";
        request.rerun = "memusage --keep=" + dir;
        for (const std::string& word : options.arguments)
            request.rerun += " " + memusagestat::shell_word(word);
        request.rerun_data = options.data_path.empty() ? dir + "/run.dat" : data_path;
        request.rerun_sites = options.sites_path.empty() ? dir + "/run.sites" : sites_path;
        request.rerun_events = dir + "/run.events";
        request.rerun_summary = dir + "/run.summary";
    }
    for (const std::string& word : options.command)
        request.command += (request.command.empty() ? "" : " ") + word;
    if (request.data_path.empty() && request.sites_path.empty() && request.events_path.empty() &&
        request.summary_path.empty())
        return Failure{
            "no profile was recorded (the program did not exit normally, or was not the "
            "profiled one), so " +
            options.html_path + " was not written"};
    Status written = memusagestat::write_html_report(request, options.html_path, warnings);
    if (!written.ok()) return Failure{"the HTML report was not written: " + written.error()};
    return {};
}

}  // namespace memusage
