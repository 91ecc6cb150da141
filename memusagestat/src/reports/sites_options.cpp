// SPDX-License-Identifier: MIT
#include "reports/sites_options.h"

#include <array>

#include "reports/duration.h"

namespace memusagestat {
namespace {

struct SitesOutputOption {
    std::string_view name;
    bool (*ask)(const std::string& value, SitesOutputs& outputs);
};

bool set_path(std::string SitesOutputs::*path, const std::string& value, SitesOutputs& outputs) {
    outputs.*path = value;
    return true;
}

constexpr std::array<SitesOutputOption, 9> kSitesOutputOptions = {{
    {"stack-peak", [](const std::string&, SitesOutputs& o) { return o.stack_peak = true; }},
    {"leaks", [](const std::string&, SitesOutputs& o) { return o.leaks = true; }},
    // The exit status is the program's own business; asking for it asks for the report.
    {"leak-exitcode", [](const std::string&, SitesOutputs& o) { return o.leaks = true; }},
    {"folded", [](const std::string& v,
                  SitesOutputs& o) { return set_path(&SitesOutputs::folded_path, v, o); }},
    {"folded-metric",
     [](const std::string& v, SitesOutputs& o) { return parse_folded_metric(v, o.folded_metric); }},
    {"dhat", [](const std::string& v,
                SitesOutputs& o) { return set_path(&SitesOutputs::dhat_path, v, o); }},
    {"pprof", [](const std::string& v,
                 SitesOutputs& o) { return set_path(&SitesOutputs::pprof_path, v, o); }},
    {"massif", [](const std::string& v,
                  SitesOutputs& o) { return set_path(&SitesOutputs::massif_path, v, o); }},
    {"long-lived",
     [](const std::string& v, SitesOutputs& o) {
         o.long_lived = parse_duration(v);
         return o.long_lived.has_value();
     }},
}};

const SitesOutputOption* find(std::string_view option) {
    for (const SitesOutputOption& known : kSitesOutputOptions)
        if (known.name == option) return &known;
    return nullptr;
}

}  // namespace

bool is_sites_output_option(std::string_view option) { return find(option) != nullptr; }

bool ask_sites_output(std::string_view option, const std::string& value, SitesOutputs& outputs) {
    const SitesOutputOption* known = find(option);
    return known && known->ask(value, outputs);
}

}  // namespace memusagestat
