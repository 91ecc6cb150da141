// SPDX-License-Identifier: MIT
#include "sites/site_accounts.h"

#include <cmath>

#include "platform/pages.h"
#include "sites/sampling.h"

namespace memusage {

bool SiteAccounts::init(uint32_t max_sites, uint64_t sample_interval) {
    sites_ = static_cast<SiteFigures*>(reserve_pages(uint64_t{max_sites} * sizeof(SiteFigures)));
    if (sites_ == nullptr) return false;
    grown_ = static_cast<GrownFigures*>(reserve_pages(kGrownPairs * sizeof(GrownFigures)));
    if (grown_ == nullptr) {
        free_pages(sites_, uint64_t{max_sites} * sizeof(SiteFigures));
        sites_ = nullptr;
        return false;
    }
    capacity_ = max_sites;
    sample_interval_ = sample_interval;
    shift_ = sample_interval == 0 ? 0 : kWeightedShift;
    for (uint32_t code = 0; code < kWeightCodes; ++code) {
        double factor = sampling::weight_of_code(code) * std::ldexp(1.0, static_cast<int>(shift_));
        factor_[code] = static_cast<int64_t>(std::llround(factor));
    }
    return true;
}

void SiteAccounts::release() {
    if (sites_ != nullptr) free_pages(sites_, uint64_t{capacity_} * sizeof(SiteFigures));
    if (grown_ != nullptr) free_pages(grown_, kGrownPairs * sizeof(GrownFigures));
    sites_ = nullptr;
    grown_ = nullptr;
    grown_full_ = false;
    capacity_ = 0;
}

}  // namespace memusage
