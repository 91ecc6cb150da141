// SPDX-License-Identifier: MIT
#include "exports/dhat_export.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sites/definitions.h"

namespace memusagestat {
namespace {

// Members in the order DHAT writes them: dh_view does not care, readers of the file do.
using Json = nlohmann::ordered_json;

uint64_t microseconds(double seconds) {
    return seconds > 0 ? static_cast<uint64_t>(std::llround(seconds * 1e6)) : 0;
}

// Frame strings, each once: index 0 is dh_view's "[root]".
class FrameTable {
  public:
    size_t index_of(const std::string& frame) {
        auto [found, inserted] = indexes_.emplace(frame, frames_.size());
        if (inserted) frames_.push_back(frame);
        return found->second;
    }
    const std::vector<std::string>& frames() const { return frames_; }

  private:
    std::vector<std::string> frames_ = {"[root]"};
    std::map<std::string, size_t> indexes_ = {{"[root]", 0}};
};

std::string dumped(const Json& value) {
    // Names from the run's files are not always valid UTF-8: replaced, never refused.
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// DHAT's own layout: a member a line, and in the two long arrays an element a line, so that
// the file reads (and diffs) line by line.
std::string laid_out(const Json& document) {
    std::string out;
    for (auto member = document.begin(); member != document.end(); ++member) {
        out += out.empty() ? "{" : ",";
        out += dumped(member.key()) + ":";
        if (!member->is_array() || (member.key() != "pps" && member.key() != "ftbl")) {
            out += dumped(*member) + "\n";
            continue;
        }
        out += "\n [";
        for (size_t i = 0; i < member->size(); ++i)
            out += (i == 0 ? "" : "\n ,") + dumped((*member)[i]);
        out += "]\n";
    }
    return out + "}\n";
}

}  // namespace

std::string dhat_json(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                      const RunLifetimes* lifetimes, const std::string& command,
                      const std::string& no_lifetimes, double end_seconds) {
    const bool with_lifetimes = lifetimes != nullptr && lifetimes->sites.size() == sites.size();
    std::string cmd = command;
    if (cmd.empty() && !profile.modules.empty()) cmd = profile.modules.front().path;

    // The viewer shows the verb as is: what the figures are not, in brackets after it.
    std::string caveats;
    if (profile.sample_interval != 0) caveats = "estimates from sampled sites";
    if (!with_lifetimes)
        caveats += (caveats.empty() ? "" : "; ") + std::string("no lifetimes: ") + no_lifetimes;
    const std::string verb = caveats.empty() ? "Allocated" : "Allocated (" + caveats + ")";

    Json document = {{"dhatFileVersion", 2}, {"mode", "heap"},
                     {"verb", verb},         {"bklt", with_lifetimes},
                     {"bkacc", false},       {"tu", "\xc2\xb5s"},
                     {"Mtu", "s"},           {"tuth", microseconds(kDhatShortLived)},
                     {"cmd", cmd},           {"pid", profile.pid}};
    if (with_lifetimes) document["tg"] = microseconds(lifetimes->peak_time);
    // The run's end: the recording's, else the run's length as known (0: unknown).
    document["te"] = with_lifetimes ? microseconds(lifetimes->duration) : microseconds(end_seconds);

    FrameTable table;
    std::set<std::vector<size_t>> stacks_seen;
    Json points = Json::array();
    for (size_t i = 0; i < sites.size(); ++i) {
        const ShownSite& site = sites[i];
        const AllocationSite& figures = site.figures;
        if (figures.blocks_allocated == 0 && figures.bytes_allocated == 0) continue;
        Json point = {{"tb", figures.bytes_allocated}, {"tbk", figures.blocks_allocated}};
        if (with_lifetimes) {
            const SiteLifetime& life = lifetimes->sites[i];
            point["tl"] = microseconds(life.total_lifetime);
            point["mb"] = life.max_bytes;
            point["mbk"] = life.max_blocks;
            point["gb"] = life.bytes_at_peak;
            point["gbk"] = life.blocks_at_peak;
        } else {
            point["gb"] = figures.bytes_at_peak;
        }
        // At exit: the program's leaks (sites/definitions.h); what the runtimes keep there is
        // no leak, named apart as the point's outermost frame.
        const Amount leaks = leaked(site), kept = kept_at_exit(site);
        point["eb"] = leaks.bytes;
        point["ebk"] = leaks.blocks;
        std::vector<size_t> frames;
        if (!site.via.empty()) frames.push_back(table.index_of(site.via));
        for (size_t line = 0; line < site.line_count(); ++line)
            frames.push_back(table.index_of(site.line(line)));
        if (kept.blocks != 0)
            frames.push_back(table.index_of("[" + plural(kept.bytes, "byte", "bytes") + " in " +
                                            plural(kept.blocks, "block", "blocks") +
                                            " at exit kept by the C and C++ runtimes: no leak]"));
        // dh_view refuses a file where two program points have the same frames.
        if (!stacks_seen.insert(frames).second)
            frames.push_back(table.index_of("[site " + std::to_string(figures.id) + "]"));
        point["fs"] = frames;
        points.push_back(std::move(point));
    }
    document["pps"] = std::move(points);
    document["ftbl"] = table.frames();
    return laid_out(document);
}

}  // namespace memusagestat
