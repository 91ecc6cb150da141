// SPDX-License-Identifier: MIT
// A sites file written by the collector's own writer, from tables the test fills in.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "memusage/sites_format.h"
#include "read/sites_reader.h"
#include "sites/site_accounts.h"
#include "sites/sites_file.h"
#include "sites/stack_table.h"
#include "support/scratch_directory.h"

namespace memusage {

class WrittenSites {
  public:
    explicit WrittenSites(uint64_t sample_interval = 0) {
        path_ = directory_.file("run.sites");
        if (FILE* f = fopen(path_.c_str(), "wb")) fclose(f);
        ready_ = stacks_.init(256, 1 << 14) && accounts_.init(256, sample_interval);
    }
    ~WrittenSites() {
        stacks_.release();
        accounts_.release();
    }
    bool ready() const { return ready_; }

    uint32_t site(const std::vector<uintptr_t>& frames) {
        return stacks_.intern(frames.data(), static_cast<uint32_t>(frames.size()));
    }
    // One event of the stream; the heap is kept here.
    void event(SiteChange change, uint32_t site, int64_t bytes) {
        heap_ += bytes;
        accounts_.on_event(site_word(change, site), bytes, static_cast<uint64_t>(heap_));
    }
    // A block of `site` joining (or leaving) the blocks last grown at `grown_at`.
    void regrown(uint32_t site, uint32_t grown_at, bool leaving, uint64_t bytes) {
        accounts_.on_event(site_word(SiteChange::resize, site), regrown_change(leaving, bytes),
                           static_cast<uint64_t>(heap_), grown_at);
    }
    // Writes the file; empty string and the profile read back, or the reader's message.
    std::string write_and_read(memusagestat::SitesProfile& profile, uint32_t flags = 0,
                               uint32_t first_refused_site = 0) {
        SitesFile file;
        if (file.open(path_.c_str()) != OpenResult::opened) return "open failed";
        bool written = file.write(stacks_, accounts_, flags, first_refused_site);
        file.close();
        if (!written) return "write failed";
        return memusagestat::read_sites_file(path_, profile).error();
    }
    const std::string& path() const { return path_; }

  private:
    test_support::ScratchDirectory directory_{"memusage-sites-unit"};
    std::string path_;
    StackTable stacks_;
    SiteAccounts accounts_;
    int64_t heap_ = 0;
    bool ready_ = false;
};

}  // namespace memusage
