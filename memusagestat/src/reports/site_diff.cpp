// SPDX-License-Identifier: MIT
#include "reports/site_diff.h"

#include <fcntl.h>
#include <memusage/sites_format.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "sites/definitions.h"
#include "sites/shown_sites.h"

namespace memusagestat {

using memusage::Status;

namespace {

void add_site(ShownSite& into, const ShownSite& site) {
    add_figures(into.figures, site.figures);
    add_figures(into.kept_by_runtime, site.kept_by_runtime);
}

}  // namespace

bool is_sites_file(const std::string& path) {
    char magic[sizeof memusage::sites_format::kMagic] = {};
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    bool sites = ::read(fd, magic, sizeof magic) == static_cast<ssize_t>(sizeof magic) &&
                 std::memcmp(magic, memusage::sites_format::kMagic, sizeof magic) == 0;
    ::close(fd);
    return sites;
}

std::string other_kind(const std::string& path) {
    char head[9] = {};
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "";
    const ssize_t got = ::read(fd, head, 8);
    ::close(fd);
    if (got < 4) return "";
    const std::string text(head, static_cast<size_t>(got));
    if (text == "MUEVENT\n") return "an event recording (memusage --events)";
    if (text == "MUSUMMR\n") return "a summary file";
    if (text == "MULIVE1\n") return "a live figures file";
    if (text.starts_with("\x7f"
                         "ELF"))
        return "a program or library, not a run's file";
    if (text.starts_with("<!") || text.starts_with("<htm")) return "an HTML page";
    return "";
}

std::string refused_kind(const std::string& before, const std::string& after) {
    for (const std::string* path : {&before, &after})
        if (const std::string kind = other_kind(*path); !kind.empty())
            return "--diff compares two sites files or two data files: " + *path + " is " + kind;
    return "";
}

Status read_diff_run(const std::string& path, DiffRun& run) {
    if (Status loaded = read_sites_file(path, run.profile); !loaded.ok()) return loaded;
    run.symbolizer = std::make_unique<Symbolizer>(run.profile.modules);
    run.sites = shown_sites(run.profile, *run.symbolizer);
    for (const ShownSite& site : run.sites) add_site(run.total, site);
    return {};
}

std::vector<MatchedSite> match_sites(const DiffRun& before, const DiffRun& after) {
    std::map<std::string, MatchedSite> by_key;
    std::vector<std::string> order;
    auto add = [&](const DiffRun& run, bool is_after) {
        for (const ShownSite& site : run.sites) {
            std::string key = site_identity(site, program_of(run.profile));
            auto [found, inserted] = by_key.try_emplace(key);
            if (inserted) order.push_back(key);
            MatchedSite& matched = found->second;
            const ShownSite*& first = is_after ? matched.after : matched.before;
            if (first == nullptr) first = &site;
            add_site(is_after ? matched.after_figures : matched.before_figures, site);
        }
    };
    add(before, false);
    add(after, true);
    std::vector<MatchedSite> matched;
    matched.reserve(order.size());
    for (const std::string& key : order) matched.push_back(std::move(by_key[key]));
    return matched;
}

const std::vector<DiffMeasure>& diff_measures() {
    static const std::vector<DiffMeasure> measures = {
        {"peak", "Change in bytes held at the heap peak", "byte", "bytes",
         [](const ShownSite& s) { return at_peak(s).bytes; }},
        {"leaked", "Change in bytes still allocated at exit (leaks)", "byte", "bytes",
         [](const ShownSite& s) { return leaked(s).bytes; }},
        {"allocated", "Change in bytes allocated", "byte", "bytes",
         [](const ShownSite& s) { return allocated(s).bytes; }},
        {"calls", "Change in calls (blocks allocated)", "call", "calls",
         [](const ShownSite& s) { return allocated(s).blocks; }},
    };
    return measures;
}

std::vector<DiffTotal> diff_totals(const DiffRun& before, const DiffRun& after) {
    const ShownSite &a = before.total, &b = after.total;
    std::vector<DiffTotal> rows = {
        {"heap peak", before.profile.heap_peak, after.profile.heap_peak},
        {"bytes allocated", allocated(a).bytes, allocated(b).bytes},
        {"calls (blocks)", allocated(a).blocks, allocated(b).blocks},
        {"bytes leaked", leaked(a).bytes, leaked(b).bytes},
        {"blocks leaked", leaked(a).blocks, leaked(b).blocks},
        // Listed apart, as in every leak figure: never a leak.
        {"kept by the runtimes", kept_at_exit(a).bytes, kept_at_exit(b).bytes},
    };
    if (before.profile.has_site_extras && after.profile.has_site_extras)
        rows.push_back({"temporary blocks", temporary(a).blocks, temporary(b).blocks});
    rows.push_back({"sites", before.sites.size(), after.sites.size()});
    return rows;
}

std::vector<DiffTotal> diff_data_totals(const ProfileHeader& before, uint64_t before_records,
                                        const ProfileHeader& after, uint64_t after_records) {
    return {
        {"heap peak", before.heap_peak, after.heap_peak},
        {"stack peak", before.stack_peak, after.stack_peak},
        {"heap + stack peak", before.total_peak, after.total_peak},
        {"records", before_records, after_records},
    };
}

}  // namespace memusagestat
