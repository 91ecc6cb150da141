// SPDX-License-Identifier: MIT
// The driver built for a board (MEMUSAGE_BOARD): memusagestat's drawing and reporting
// libraries (Cairo, Pango, libdw) stay on the desktop, so the options that need them are
// refused before the program runs, each with the way to the same result: keep the run's
// files on the board and give them to memusagestat on the desktop.
#include <string>
#include <vector>

#include "graph_request.h"
#include "html_request.h"
#include "report_module.h"
#include "sites_request.h"

namespace memusage {
namespace {

const std::string kOnTheDesktop = " on the desktop: this memusage was built for a board";

}  // namespace

Status graph_request_error(const DriverOptions& options) {
    return Failure{
        "the graph (-p " + options.png_path + ") is drawn" + kOnTheDesktop +
        "; keep the data with -d FILE and draw it there with 'memusagestat FILE OUT.png'"};
}

GraphResult draw_requested_graph(const DriverOptions&, const std::string&) {
    return {GraphOutcome::failed, "the graph is drawn" + kOnTheDesktop};
}

Status sites_request_error(const DriverOptions& options) {
    if (wants_sites(options) || options.stack_peak)
        return Failure{
            "the allocation sites' reports are made" + kOnTheDesktop +
            "; keep the sites with --sites-file=FILE (and lifetimes with --events=FILE) and "
            "report there with 'memusagestat --sites=FILE --leaks' (--sysroot=DIR: a copy "
            "of the board's binaries, for its symbols)"};
    if (wants_html(options))
        return Failure{
            "the HTML report is written" + kOnTheDesktop +
            "; keep the files with -d, --sites-file and --events and write it there with "
            "'memusagestat --html=OUT.html DATAFILE --sites=FILE --events=FILE'"};
    return {};
}

Status requested_sites_outputs(const DriverOptions&, const std::string&, const std::string&,
                               const RunTimes&, SitesOutcome&) {
    return Failure{"the allocation sites' reports are made" + kOnTheDesktop};
}

Status write_requested_html(const DriverOptions&, const std::string&, const std::string&,
                            const std::string&, const std::string&, std::vector<std::string>&) {
    return Failure{"the HTML report is written" + kOnTheDesktop};
}

// Linked in: no module to load. The live view names sites with module_naming.cpp.
Result<const ReportFunctions*> report_functions() {
    static const ReportFunctions functions{nullptr,
                                           sizeof(DriverOptions),
                                           graph_request_error,
                                           draw_requested_graph,
                                           sites_request_error,
                                           requested_sites_outputs,
                                           write_requested_html,
                                           nullptr};
    return &functions;
}

}  // namespace memusage
