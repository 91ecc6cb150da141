// SPDX-License-Identifier: MIT
// The driver's drawing and reporting (-p, --sites and its exports, --html, the live view's
// site names) are memusagestat's libraries, which bring Cairo, Pango, libdw and protobuf:
// about fifty shared libraries, more memory and start-up time than the rest of the driver.
// Most runs only print the summary, so that code is a module of its own (the report module,
// beside the collector), loaded only when an option needs it. A board's driver has no
// module: its functions refuse those options (board_requests.cpp).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "graph_request.h"
#include "live/stack_naming.h"
#include "memusage/status.h"
#include "options.h"
#include "sites_request.h"

namespace memusage {

// What the module does for the driver, one function each (graph_request.h, sites_request.h,
// html_request.h, live/stack_naming.h).
struct ReportFunctions {
    // The module's version and commit, and its DriverOptions' size: the driver uses only a
    // module of its own build, whose structures are laid out as its own.
    const char* build = nullptr;
    size_t options_size = 0;
    Status (*graph_request_error)(const DriverOptions& options) = nullptr;
    GraphResult (*draw_requested_graph)(const DriverOptions& options,
                                        const std::string& data_path) = nullptr;
    Status (*sites_request_error)(const DriverOptions& options) = nullptr;
    Status (*requested_sites_outputs)(const DriverOptions& options, const std::string& sites_path,
                                      const std::string& events_path, const RunTimes& run,
                                      SitesOutcome& outcome) = nullptr;
    Status (*write_requested_html)(const DriverOptions& options, const std::string& data_path,
                                   const std::string& sites_path, const std::string& events_path,
                                   const std::string& summary_path,
                                   std::vector<std::string>& warnings) = nullptr;
    std::unique_ptr<live::StackNaming> (*stack_naming)(pid_t pid) = nullptr;
};

inline constexpr const char* kReportModuleFileName = "memusage-reports.so";
// The module's one exported symbol: a function returning its ReportFunctions.
inline constexpr const char* kReportModuleEntry = "memusage_report_functions";
extern "C" {
using ReportModuleEntry = const ReportFunctions* (*)();
}

// The options need the module: a picture, a sites report or export, the HTML report, or the
// live view (which names the sites). Anything else only runs the program and its summary.
inline bool needs_report_module(const DriverOptions& options) {
    return !options.png_path.empty() || wants_sites(options) || options.stack_peak.has_value() ||
           wants_html(options) || !options.folded_metric.empty() || options.live ||
           options.watch_pid.has_value();
}

// The module's functions, loaded at the first call and kept for the process's life; a
// failure with a message for the user when the module cannot be loaded.
Result<const ReportFunctions*> report_functions();

}  // namespace memusage
