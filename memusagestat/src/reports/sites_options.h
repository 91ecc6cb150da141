// SPDX-License-Identifier: MIT
// The options that ask the allocation-site report for an output, under the names both
// `memusagestat --sites=FILE` and `memusage` take them: the one mapping from option to output
// (SitesOutputs), used by memusagestat's command line and by the driver's hand-over.
#pragma once

#include <string>
#include <string_view>

#include "reports/sites_outputs.h"

namespace memusagestat {

// The option names ask_sites_output knows.
bool is_sites_output_option(std::string_view option);

// Sets in `outputs` what `option`, given `value` (empty for a switch), asks for: --stack-peak,
// --leaks, --leak-exitcode, --folded, --folded-metric, --dhat, --pprof, --massif, --long-lived.
// False when the value cannot be taken (a metric or a duration that is none), or for another
// option; each program words its own message.
bool ask_sites_output(std::string_view option, const std::string& value, SitesOutputs& outputs);

}  // namespace memusagestat
