// SPDX-License-Identifier: MIT
// The live view's names for the sites a process holds the most in: each published stack
// of return addresses named (stack_naming.h) with the modules the process has mapped now
// (/proc/PID/maps), sites of one name made one line.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "live/screen_text.h"
#include "live/stack_naming.h"
#include "memusage/live_format.h"

namespace memusage::live {

class LiveSiteNames {
  public:
    explicit LiveSiteNames(pid_t pid);
    ~LiveSiteNames();
    LiveSiteNames(const LiveSiteNames&) = delete;
    LiveSiteNames& operator=(const LiveSiteNames&) = delete;

    // The reading's sites, named; sites with the same name are one line (their stacks
    // differ only beyond what the name shows), most bytes first.
    std::vector<SiteLine> lines(const live_format::Figures& figures);

  private:
    std::string name_of(const live_format::HeldSite& site, bool& resolved);

    std::unique_ptr<StackNaming> naming_;
    bool modules_read_ = false;
    // Names by stack, kept across refreshes once every address was in a known module.
    std::map<std::vector<uint64_t>, std::string> names_;
};

}  // namespace memusage::live
