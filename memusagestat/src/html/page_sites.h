// SPDX-License-Identifier: MIT
// The report's `sites` (web/DATA.md): the shown sites of `memusage --sites`, with its
// figures, each stack's frames once in the shared FrameTable with their source lines.
// Bounded: beyond kMaxSites the sites ranked highest by any figure are kept, beyond
// kMaxFrames a stack's further frames are cut.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "html/frame_table.h"
#include "read/sites_reader.h"
#include "sites/shown_sites.h"
#include "sites/site_id_table.h"

namespace memusagestat {

struct ReportSiteBounds {
    size_t sites = 5000;
    size_t frames = 30000;
};

class ReportSites {
  public:
    ReportSites(const SitesProfile& profile, Symbolizer& symbolizer,
                const ReportSiteBounds& bounds = {});

    // The report's index of the site a raw site (SiteRecord::id) shows in; -1 for none, or
    // for a site left out by the bound.
    int32_t index_of(uint32_t raw_id) const { return index_of_id_[raw_id]; }
    // Whether a raw site's blocks are ones the C or C++ runtime keeps until exit
    // (ShownSite::kept_ids), which the leak and long-lived reports count apart.
    bool kept_by_runtime(uint32_t raw_id) const { return kept_ids_[raw_id] != 0; }
    size_t size() const { return kept_.size(); }
    // Blocks freed before their thread's next allocation, per report site: the sites file's
    // counts when it has them (temporary_known), else the replay adds them.
    std::vector<uint64_t>& temporary() { return temporary_; }
    bool temporary_known() const { return temporary_known_; }

    // `sites`, their frames into `table` (of ReportSiteBounds::frames frames; a stack
    // meeting it full is cut); also says in `notes` how many sites the bound left out.
    void write(FrameTable& table, nlohmann::json& sites, std::vector<std::string>& notes);

  private:
    std::vector<ShownSite> shown_;
    std::vector<size_t> kept_;  // indexes into shown_, in its order
    // Both looked up for every event of the replay: arrays by raw id.
    SiteIdTable<int32_t> index_of_id_;
    SiteIdTable<uint8_t> kept_ids_;  // 1: kept by the runtime
    std::vector<uint64_t> temporary_;
    bool temporary_known_ = false;
    ReportSiteBounds bounds_;
};

}  // namespace memusagestat
