// SPDX-License-Identifier: MIT
// Two runs' sites matched, and the figures compared: the one matcher and the one set of
// figures of every diff (memusagestat --diff's text, the two-run page of --html --diff).
// Sites are matched by site_identity (their functions and file:line, never by address), so
// two builds of a program compare; sites of one run that share an identity are summed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memusage/status.h"
#include "read/profile.h"
#include "read/sites_reader.h"
#include "sites/shown_sites.h"
#include "sites/symbolizer.h"

namespace memusagestat {

// One run's sites file, read and its sites shown.
struct DiffRun {
    SitesProfile profile;
    std::unique_ptr<Symbolizer> symbolizer;  // the sites' frames are its
    std::vector<ShownSite> sites;
    ShownSite total;  // the sites' figures and the runtime's, summed
};

// Failing, a message for the user.
memusage::Status read_diff_run(const std::string& path, DiffRun& run);

// The file starts as a sites file does (its magic).
bool is_sites_file(const std::string& path);

// What the file is when it is none of the files --diff compares (an event recording, a summary
// file, a program, a page), as the refusal names it; "" otherwise. A glibc data file has no
// mark of its own: anything else that is not a sites file is read as one.
std::string other_kind(const std::string& path);
// The refusal of a file other_kind names: "--diff compares two sites files or two data files:
// PATH is KIND"; "" when neither file is of another kind.
std::string refused_kind(const std::string& before, const std::string& after);

// One site of either run or both: `before` or `after` null when the site is only in the
// other run (new: no `before`; gone: no `after`).
struct MatchedSite {
    const ShownSite* before = nullptr;
    const ShownSite* after = nullptr;
    ShownSite before_figures, after_figures;  // summed: folding may join sites

    const ShownSite& shown() const { return after != nullptr ? *after : *before; }
};

// Every site of both runs, BEFORE's in their order, then those only AFTER has.
std::vector<MatchedSite> match_sites(const DiffRun& before, const DiffRun& after);

// A figure every diff compares site by site.
struct DiffMeasure {
    const char* key;    // "peak", "leaked", "allocated", "calls"
    const char* title;  // the text diff's heading
    const char* unit_one;
    const char* unit_many;
    std::function<uint64_t(const ShownSite&)> value;
};
// In the text diff's order.
const std::vector<DiffMeasure>& diff_measures();

// A row of the totals: `label` as the text diff writes it.
struct DiffTotal {
    std::string label;
    uint64_t before = 0, after = 0;
};
std::vector<DiffTotal> diff_totals(const DiffRun& before, const DiffRun& after);
// Two data files' totals (their headers' peaks and their records).
std::vector<DiffTotal> diff_data_totals(const ProfileHeader& before, uint64_t before_records,
                                        const ProfileHeader& after, uint64_t after_records);

// AFTER's figure less BEFORE's.
inline int64_t change_of(uint64_t before, uint64_t after) {
    return static_cast<int64_t>(after) - static_cast<int64_t>(before);
}

}  // namespace memusagestat
