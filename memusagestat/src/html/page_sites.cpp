// SPDX-License-Identifier: MIT
#include "html/page_sites.h"

#include <algorithm>
#include <numeric>

#include "html/frame_table.h"

namespace memusagestat {
namespace {

using Figure = uint64_t (*)(const ShownSite&);

// What the rankings of `memusage --sites` and the flame graph's weights rank by.
constexpr Figure kRankings[] = {
    [](const ShownSite& s) { return s.figures.bytes_at_peak; },
    [](const ShownSite& s) { return s.program_figures().bytes_leaked(); },
    [](const ShownSite& s) { return s.figures.bytes_allocated; },
    [](const ShownSite& s) { return s.figures.blocks_allocated; },
};

// The sites shown when there are more than `bound`: each site's best place in any ranking,
// the best places kept; in the shown order.
std::vector<size_t> best_ranked(const std::vector<ShownSite>& sites, size_t bound) {
    std::vector<size_t> all(sites.size());
    std::iota(all.begin(), all.end(), 0);
    if (sites.size() <= bound) return all;
    std::vector<size_t> best_place(sites.size(), SIZE_MAX);
    for (Figure figure : kRankings) {
        std::vector<size_t> order = all;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return figure(sites[a]) > figure(sites[b]); });
        for (size_t place = 0; place < order.size(); ++place)
            best_place[order[place]] = std::min(best_place[order[place]], place);
    }
    std::vector<size_t> order = all;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return best_place[a] < best_place[b]; });
    order.resize(bound);
    std::sort(order.begin(), order.end());
    return order;
}

}  // namespace

ReportSites::ReportSites(const SitesProfile& profile, Symbolizer& symbolizer,
                         const ReportSiteBounds& bounds)
    : shown_(shown_sites(profile, symbolizer)),
      kept_(best_ranked(shown_, bounds.sites)),
      index_of_id_(profile.sites.size(), -1),
      kept_ids_(profile.sites.size(), 0),
      temporary_(kept_.size()),
      temporary_known_(profile.has_site_extras),
      bounds_(bounds) {
    for (size_t index = 0; index < kept_.size(); ++index) {
        for (uint32_t id : shown_[kept_[index]].ids)
            if (index_of_id_.at(id) < 0) index_of_id_.at(id) = static_cast<int32_t>(index);
        if (temporary_known_) temporary_[index] = shown_[kept_[index]].figures.temporary_blocks;
    }
    for (const ShownSite& site : shown_)
        for (uint32_t id : site.kept_ids) kept_ids_.at(id) = 1;
}

void ReportSites::write(FrameTable& table, nlohmann::json& sites, std::vector<std::string>& notes) {
    sites = nlohmann::json::array();
    for (size_t index = 0; index < kept_.size(); ++index) {
        const ShownSite& site = shown_[kept_[index]];
        nlohmann::json stack = nlohmann::json::array();
        bool cut = site.cut_at != 0;
        for (const SourceFrame* frame : site.frames) {
            const int64_t at = table.index_of(*frame);
            if (at < 0) {
                cut = true;
                break;
            }
            stack.push_back(at);
        }
        const AllocationSite program = site.program_figures();
        nlohmann::json grown = nlohmann::json::array();
        for (const ShownSite::Grown& g : site.grown)
            grown.push_back(
                {{"where", g.where},
                 {"peak", g.bytes_at_peak},
                 {"peak_blocks", g.blocks_at_peak},
                 {"leaked", std::min(g.bytes_at_exit, program.bytes_leaked())},
                 {"leaked_blocks", std::min(g.blocks_at_exit, program.blocks_leaked())}});
        sites.push_back({{"id", site.figures.id},
                         {"via", site.via.empty() ? nlohmann::json() : nlohmann::json(site.via)},
                         {"frames", std::move(stack)},
                         {"cut", cut},
                         {"peak", site.figures.bytes_at_peak},
                         {"allocated", site.figures.bytes_allocated},
                         {"blocks", site.figures.blocks_allocated},
                         {"freed", site.figures.bytes_freed},
                         {"freed_blocks", site.figures.blocks_freed},
                         {"leaked", program.bytes_leaked()},
                         {"leaked_blocks", program.blocks_leaked()},
                         {"kept_by_runtime", site.kept_by_runtime.bytes_leaked()},
                         {"temporary", temporary_[index]},
                         {"grown", std::move(grown)}});
    }
    if (kept_.size() < shown_.size())
        notes.push_back("The report holds " + std::to_string(kept_.size()) + " of the run's " +
                        std::to_string(shown_.size()) +
                        " allocation sites: those ranked highest by bytes at the peak, leaked, "
                        "allocated or blocks (memusage --sites lists them all).");
}

}  // namespace memusagestat
