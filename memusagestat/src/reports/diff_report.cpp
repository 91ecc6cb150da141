// SPDX-License-Identifier: MIT
#include "reports/diff_report.h"

#include <memusage/quantities.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <vector>

#include "read/mapped_data_file.h"
#include "reports/site_diff.h"
#include "sites/definitions.h"
#include "sites/shown_sites.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

std::string signed_number(int64_t value) { return (value > 0 ? "+" : "") + std::to_string(value); }

std::string change_text(uint64_t before, uint64_t after) {
    const int64_t change = change_of(before, after);
    std::string text = signed_number(change);
    if (before != 0 && change != 0) {
        char percent[32];
        std::snprintf(percent, sizeof percent, " (%+.1f%%)",
                      100.0 * static_cast<double>(change) / static_cast<double>(before));
        text += percent;
    }
    return text;
}

void table_row(std::string& out, const char* label, uint64_t before, uint64_t after) {
    char row[160];
    std::snprintf(row, sizeof row, "  %-22s %14" PRIu64 " %14" PRIu64 "   %s\n", label, before,
                  after, change_text(before, after).c_str());
    out += row;
}

void table_head(std::string& out) {
    char row[160];
    std::snprintf(row, sizeof row, "  %-22s %14s %14s   %s\n", "", "before", "after", "change");
    out += row;
}

void write_changes(std::string& out, const DiffMeasure& measure,
                   const std::vector<MatchedSite>& sites, unsigned top) {
    std::vector<const MatchedSite*> changed;
    auto change = [&](const MatchedSite* site) {
        return change_of(measure.value(site->before_figures), measure.value(site->after_figures));
    };
    for (const MatchedSite& site : sites)
        if (change(&site) != 0) changed.push_back(&site);
    std::stable_sort(changed.begin(), changed.end(),
                     [&](const MatchedSite* a, const MatchedSite* b) {
                         return std::llabs(change(a)) > std::llabs(change(b));
                     });
    out += "\n";
    out += measure.title;
    if (changed.size() > top)
        out += " (top " + std::to_string(top) + " of " + std::to_string(changed.size()) + ")";
    out += ":\n";
    if (changed.empty()) out += "   none\n";
    for (size_t i = 0; i < changed.size() && i < top; ++i) {
        const MatchedSite& site = *changed[i];
        uint64_t before = measure.value(site.before_figures),
                 after = measure.value(site.after_figures);
        std::string figures =
            signed_number(change(&site)) + " " +
            (std::llabs(change(&site)) == 1 ? measure.unit_one : measure.unit_many) + " (" +
            std::to_string(before) + " -> " + std::to_string(after) + ")";
        if (site.before == nullptr) figures += " new";
        if (site.after == nullptr) figures += " gone";
        write_entry(out, i + 1, figures, site.shown());
    }
}

std::string diff_sites(const DiffRun& before, const DiffRun& after, const DiffOptions& options) {
    std::string out;
    table_head(out);
    for (const DiffTotal& row : diff_totals(before, after))
        table_row(out, row.label.c_str(), row.before, row.after);
    const std::vector<MatchedSite> matched = match_sites(before, after);
    for (const DiffMeasure& measure : diff_measures())
        write_changes(out, measure, matched, options.top);
    return out;
}

std::string diff_data(const ProfileHeader& before, uint64_t before_events,
                      const ProfileHeader& after, uint64_t after_events) {
    std::string out;
    table_head(out);
    for (const DiffTotal& row : diff_data_totals(before, before_events, after, after_events))
        table_row(out, row.label.c_str(), row.before, row.after);
    out +=
        "(data files hold totals only: give sites files (memusage --sites-file) for the sites)\n";
    return out;
}

std::string growth_verdict(uint64_t before, uint64_t after, const GrowthLimit& limit,
                           bool& grown_beyond) {
    uint64_t growth = after > before ? after - before : 0;
    std::string allowed;
    if (limit.is_percent) {
        char text[32];
        std::snprintf(text, sizeof text, "%g%%", limit.percent);
        allowed = text;
        grown_beyond =
            growth > 0 && (before == 0 || static_cast<double>(growth) * 100.0 >
                                              limit.percent * static_cast<double>(before));
    } else {
        allowed = std::to_string(limit.bytes) + " bytes";
        grown_beyond = growth > limit.bytes;
    }
    return "\nThe heap peak grew by " + std::to_string(growth) + " bytes" +
           (grown_beyond ? ": more than " : ": within ") + allowed + " (--fail-if-grown)\n";
}

}  // namespace

bool parse_growth_limit(const std::string& text, GrowthLimit& limit) {
    if (text.ends_with("%")) {
        const std::string number = text.substr(0, text.size() - 1);
        if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos)
            return false;
        char* end = nullptr;
        double percent = std::strtod(number.c_str(), &end);
        if (end != number.c_str() + number.size() || !std::isfinite(percent)) return false;
        limit = GrowthLimit{true, percent, 0};
        return true;
    }
    uint64_t bytes = 0;
    if (!memusage::parse_size(text.c_str(), bytes)) return false;
    limit = GrowthLimit{false, 0, bytes};
    return true;
}

Status diff_files(const std::string& before, const std::string& after, const DiffOptions& options,
                  DiffResult& result) {
    result = DiffResult{};
    if (const std::string refused = refused_kind(before, after); !refused.empty())
        return Failure{refused};
    const bool sites_before = is_sites_file(before), sites_after = is_sites_file(after);
    if (sites_before != sites_after)
        return Failure{"--diff compares two sites files or two data files: " +
                       (sites_before ? before : after) + " is a sites file, " +
                       (sites_before ? after : before) + " is not"};
    result.text = "Comparing " + before + " (before) with " + after + " (after)\n\n";
    uint64_t peak_before = 0, peak_after = 0;
    if (sites_before) {
        DiffRun read_before, read_after;
        if (Status loaded = read_diff_run(before, read_before); !loaded.ok()) return loaded;
        if (Status loaded = read_diff_run(after, read_after); !loaded.ok()) return loaded;
        const std::string program_before = program_of(read_before.profile),
                          program_after = program_of(read_after.profile);
        if (program_before != program_after)
            result.text += "Warning: the runs are of different programs (" + program_before + ", " +
                           program_after +
                           "): their sites match only where the same functions allocate\n\n";
        result.text += diff_sites(read_before, read_after, options);
        peak_before = read_before.profile.heap_peak;
        peak_after = read_after.profile.heap_peak;
    } else {
        MappedDataFile file_before, file_after;
        if (Status opened = file_before.open(before); !opened.ok())
            return Failure{before + ": " + opened.error()};
        if (Status opened = file_after.open(after); !opened.ok())
            return Failure{after + ": " + opened.error()};
        const Profile& a = file_before.profile();
        const Profile& b = file_after.profile();
        result.text += diff_data(a.header, a.events.size(), b.header, b.events.size());
        peak_before = a.header.heap_peak;
        peak_after = b.header.heap_peak;
    }
    if (options.fail_if_grown)
        result.text += growth_verdict(peak_before, peak_after, *options.fail_if_grown,
                                      result.grown_beyond_limit);
    return {};
}

}  // namespace memusagestat
