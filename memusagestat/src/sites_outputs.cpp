#include "sites_outputs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "dhat_export.h"
#include "leak_report.h"
#include "shown_sites.h"
#include "sites_report.h"

namespace memusagestat {
namespace {

std::string write_file(const std::string& path, const std::string& text) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) return "cannot write " + path + ": " + std::strerror(errno);
    bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    int error = errno;
    if (std::fclose(file) != 0 && written) {
        written = false;
        error = errno;
    }
    if (!written) return "cannot write " + path + ": " + std::strerror(error);
    return {};
}

}  // namespace

std::string make_sites_outputs(const std::string& sites_path, const SitesOutputs& outputs,
                               SitesResult& result) {
    result = SitesResult{};
    SitesProfile profile;
    if (std::string error = read_sites_file(sites_path, profile); !error.empty()) return error;
    Symbolizer symbolizer(profile.modules);
    std::vector<ShownSite> sites = shown_sites(profile, symbolizer);

    if (outputs.rankings)
        result.text += sites_report(profile, sites, symbolizer, SitesReportOptions{outputs.top});
    if (outputs.leaks) {
        LeakReport leaks = leak_report(profile, sites, symbolizer);
        if (!result.text.empty()) result.text += "\n";
        result.text += leaks.text;
        result.leaks_found = leaks.blocks > 0;
    }
    if (!outputs.folded_path.empty()) {
        std::string error =
            write_file(outputs.folded_path, folded_stacks(sites, outputs.folded_metric));
        if (!error.empty()) return error;
    }
    if (!outputs.dhat_path.empty()) {
        std::string error =
            write_file(outputs.dhat_path, dhat_json(profile, sites, nullptr, outputs.command));
        if (!error.empty()) return error;
        result.warning =
            "the DHAT file has no lifetimes (no event recording): dh_view shows totals only";
    }
    return {};
}

}  // namespace memusagestat
