// SPDX-License-Identifier: MIT
// The report's data (web/DATA.md) from the files of one run: any of the glibc data file, the
// sites file, the event recording and the summary file. Every array is bounded, so the
// report of any run stays small enough for a browser (ReportBounds).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "html/page_events.h"
#include "html/page_sites.h"
#include "html/page_sources.h"
#include "html/page_timeline.h"
#include "html/time_window.h"
#include "memusage/status.h"

namespace memusagestat {

struct HtmlReportRequest {
    std::string data_path, sites_path, events_path, summary_path;  // empty: not given
    std::string command;                                           // "" when unknown
    std::optional<TimeWindow> window;
    // --source-dir: where a moved tree's source files are looked for (SourceLocator); empty:
    // at their recorded paths only.
    std::string source_dir;
    // The files are temporaries, gone once the report is written (a plain memusage --html):
    // a window's report then needs the program run again with its files kept, by `rerun`
    // (a shell command), which keeps them at the `rerun_*` paths.
    bool files_private = false;
    std::string rerun, rerun_data, rerun_sites, rerun_events, rerun_summary;
};

// `word` as one word for a POSIX shell: as it is when it needs no quoting, else in single
// quotes.
std::string shell_word(const std::string& word);

struct ReportBounds {
    size_t timeline = kTimelineBound;
    ReportEventBounds events;
    ReportSiteBounds sites;
    SourceBounds sources;
};

// Failing, a message for the user; `warnings`: what the user should know that is no error
// (also in the report's notes).
memusage::Status build_report_data(const HtmlReportRequest& request, const ReportBounds& bounds,
                                   nlohmann::json& data, std::vector<std::string>& warnings);

}  // namespace memusagestat
