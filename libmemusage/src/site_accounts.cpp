#include "site_accounts.h"

#include "pages.h"

namespace memusage {

bool SiteAccounts::init(uint32_t max_sites) {
    sites_ = static_cast<SiteFigures*>(reserve_pages(uint64_t{max_sites} * sizeof(SiteFigures)));
    if (sites_ == nullptr) return false;
    capacity_ = max_sites;
    return true;
}

void SiteAccounts::release() {
    if (sites_ != nullptr) free_pages(sites_, uint64_t{capacity_} * sizeof(SiteFigures));
    sites_ = nullptr;
    capacity_ = 0;
}

}  // namespace memusage
