#include "exports/dhat_export.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace memusagestat {
namespace {

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

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

void field(std::string& out, const char* name, uint64_t value) {
    out += ",\"";
    out += name;
    out += "\":" + std::to_string(value);
}

}  // namespace

std::string dhat_json(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                      const RunLifetimes* lifetimes, const std::string& command,
                      const std::string& no_lifetimes) {
    const bool with_lifetimes = lifetimes != nullptr && lifetimes->sites.size() == sites.size();
    std::string cmd = command;
    if (cmd.empty() && !profile.modules.empty()) cmd = profile.modules.front().path;

    std::string out = "{\"dhatFileVersion\":2\n,\"mode\":\"heap\"\n";
    // The viewer shows the verb as is: what the figures are not, in brackets after it.
    std::string caveats;
    if (profile.sample_interval != 0) caveats = "estimates from sampled sites";
    if (!with_lifetimes)
        caveats += (caveats.empty() ? "" : "; ") + std::string("no lifetimes: ") + no_lifetimes;
    const std::string verb = caveats.empty() ? "Allocated" : "Allocated (" + caveats + ")";
    out += ",\"verb\":" + json_string(verb) + "\n";
    out += std::string(",\"bklt\":") + (with_lifetimes ? "true" : "false") + "\n";
    out += ",\"bkacc\":false\n,\"tu\":\"\xc2\xb5s\"\n,\"Mtu\":\"s\"\n";
    out += ",\"tuth\":" + std::to_string(microseconds(kDhatShortLived)) + "\n";
    out += ",\"cmd\":" + json_string(cmd) + "\n";
    out += ",\"pid\":" + std::to_string(profile.pid) + "\n";
    if (with_lifetimes) {
        out += ",\"tg\":" + std::to_string(microseconds(lifetimes->peak_time)) + "\n";
        out += ",\"te\":" + std::to_string(microseconds(lifetimes->duration)) + "\n";
    } else {
        out += ",\"te\":0\n";  // unknown without a recording
    }

    FrameTable table;
    std::set<std::vector<size_t>> stacks_seen;
    out += ",\"pps\":\n [";
    bool first = true;
    for (size_t i = 0; i < sites.size(); ++i) {
        const ShownSite& site = sites[i];
        const AllocationSite& figures = site.figures;
        if (figures.blocks_allocated == 0 && figures.bytes_allocated == 0) continue;
        out += first ? "{" : "\n ,{";
        first = false;
        out += "\"tb\":" + std::to_string(figures.bytes_allocated);
        field(out, "tbk", figures.blocks_allocated);
        if (with_lifetimes) {
            const SiteLifetime& life = lifetimes->sites[i];
            field(out, "tl", microseconds(life.total_lifetime));
            field(out, "mb", life.max_bytes);
            field(out, "mbk", life.max_blocks);
            field(out, "gb", life.bytes_at_peak);
            field(out, "gbk", life.blocks_at_peak);
        } else {
            field(out, "gb", figures.bytes_at_peak);
        }
        field(out, "eb", figures.bytes_leaked());
        field(out, "ebk", figures.blocks_leaked());
        out += ",\"fs\":[";
        std::vector<size_t> frames;
        if (!site.via.empty()) frames.push_back(table.index_of(site.via));
        for (const std::string& line : site.lines) frames.push_back(table.index_of(line));
        // dh_view refuses a file where two program points have the same frames.
        if (!stacks_seen.insert(frames).second)
            frames.push_back(table.index_of("[site " + std::to_string(figures.id) + "]"));
        for (size_t f = 0; f < frames.size(); ++f)
            out += (f == 0 ? "" : ",") + std::to_string(frames[f]);
        out += "]}";
    }
    out += "]\n,\"ftbl\":\n [";
    const std::vector<std::string>& frames = table.frames();
    for (size_t f = 0; f < frames.size(); ++f)
        out += (f == 0 ? "" : "\n ,") + json_string(frames[f]);
    out += "]\n}\n";
    return out;
}

}  // namespace memusagestat
