// SPDX-License-Identifier: MIT
// The report module's one exported symbol (report_module.h): its functions, for the driver
// that loads it. Everything else in the module is hidden.
#include "commit_id.h"  // generated at every build: MEMUSAGE_COMMIT
#include "html_request.h"
#include "report_module.h"

#ifndef MEMUSAGE_VERSION
#define MEMUSAGE_VERSION "unknown"
#endif

namespace {

constexpr memusage::ReportFunctions kFunctions{
    MEMUSAGE_VERSION " " MEMUSAGE_COMMIT, sizeof(memusage::DriverOptions),
    memusage::graph_request_error,        memusage::draw_requested_graph,
    memusage::sites_request_error,        memusage::requested_sites_outputs,
    memusage::write_requested_html,       memusage::live::symbol_naming,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const memusage::ReportFunctions*
memusage_report_functions() {
    return &kFunctions;
}
