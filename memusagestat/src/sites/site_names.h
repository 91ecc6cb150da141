// SPDX-License-Identifier: MIT
// Allocation sites named for pictures: each site of a sites file folded the way the report
// folds it (frame_folding), grouped with the sites that fold to the same stack, ranked as the
// report's first ranking (bytes at the heap peak, then bytes allocated), and named by the
// program's innermost function and its file:line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "read/sites_reader.h"
#include "sites/symbolizer.h"

namespace memusagestat {

struct FlameFrame {
    std::string name;     // the function's short name, or module+offset
    bool program = true;  // the program's own code (else a library's, or the runtime's)
};

struct SiteGroup {
    std::string function;           // the innermost shown frame's short name
    std::string location;           // "file.c:12", "in libfoo.so", or empty
    std::string via;                // the wrapper allocated through ("operator new"), if any
    std::vector<FlameFrame> stack;  // outermost first; ends with the wrapper allocated through
    AllocationSite figures;         // summed over the group's sites
    std::vector<uint32_t> ids;      // SiteRecord ids of the sites in the group

    // "function (file.c:12)", or the function alone.
    std::string label() const {
        return location.empty() ? function : function + " (" + location + ")";
    }
};

class SiteNames {
  public:
    SiteNames(const SitesProfile& profile, Symbolizer& symbolizer);

    // Largest first: bytes at the heap peak, then bytes allocated.
    const std::vector<SiteGroup>& groups() const { return groups_; }

  private:
    std::vector<SiteGroup> groups_;
};

// The name the report gives a stack of symbolised frames (innermost first), as
// SiteGroup::label(): the program's innermost shown frame's short name and its file:line.
std::string shown_site_label(const std::vector<SourceFrame>& frames);

// The program a sites file describes: its first module's file name ("" when none).
std::string program_name(const SitesProfile& profile);

}  // namespace memusagestat
