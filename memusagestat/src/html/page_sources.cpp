// SPDX-License-Identifier: MIT
#include "html/page_sources.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace memusagestat {
namespace {

// "1 MB", or "512 KB" below a megabyte.
std::string megabytes(size_t bytes) {
    if (bytes < (size_t{1} << 20)) return std::to_string(bytes >> 10) + " KB";
    return std::to_string(bytes >> 20) + " MB";
}

// Each file the sites' frames name, with the bytes the sites naming it allocated (each site
// once per file).
std::map<std::string, uint64_t> named_files(const nlohmann::json& sites,
                                            const nlohmann::json& frames) {
    std::map<std::string, uint64_t> files;
    if (!sites.is_array()) return files;
    for (const nlohmann::json& site : sites) {
        std::set<std::string> named;
        for (const nlohmann::json& index : site.at("frames")) {
            const int64_t i = index.get<int64_t>();
            if (i < 0 || static_cast<size_t>(i) >= frames.size()) continue;
            const nlohmann::json& file = frames[static_cast<size_t>(i)].at("file");
            if (file.is_string()) named.insert(file.get<std::string>());
        }
        for (const std::string& file : named) files[file] += site.value("allocated", uint64_t{0});
    }
    return files;
}

// What the file costs the page as JSON: its bytes, and a few for each line's quotes and comma.
size_t cost_of(const SourceFile& file) { return file.bytes + 4 * file.lines.size() + 64; }

std::string reason_not_read(const SourceFile& file, const SourceLocator& locator) {
    using State = SourceFile::State;
    if (file.state == State::too_large)
        return "larger than the " + megabytes(SourceLines::kMaxFileBytes) + " read of a file";
    if (file.state == State::unreadable) return "found at " + file.path + " but not readable";
    return locator.source_dir().empty()
               ? "not found on this machine (for a tree moved since the build: --source-dir=DIR)"
               : "not found, nor under " + locator.source_dir();
}

}  // namespace

nlohmann::json sources_json(const nlohmann::json& sites, const nlohmann::json& frames,
                            SourceLines& sources, const SourceBounds& bounds, size_t room) {
    const std::map<std::string, uint64_t> named = named_files(sites, frames);
    std::vector<std::pair<std::string, uint64_t>> order(named.begin(), named.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const size_t budget = std::min(bounds.all_bytes, room);
    size_t spent = 0;
    nlohmann::json files = nlohmann::json::array();
    for (const auto& [name, allocated] : order) {
        // Met by the frames already: the compile directory is no longer needed to find it.
        const SourceFile& file = sources.file(name, "");
        nlohmann::json entry = {
            {"file", name},
            {"path", file.path.empty() ? nlohmann::json() : nlohmann::json(file.path)},
            {"bytes", file.path.empty() ? nlohmann::json() : nlohmann::json(file.bytes)},
            {"lines", nullptr},
            {"omitted", nullptr}};
        if (file.state != SourceFile::State::read) {
            entry["omitted"] = reason_not_read(file, sources.locator());
        } else if (file.bytes > bounds.file_bytes) {
            entry["omitted"] =
                "larger than the " + megabytes(bounds.file_bytes) + " the report takes of a file";
        } else if (spent + cost_of(file) > budget) {
            entry["omitted"] = "the report's room for source files (" + megabytes(budget) +
                               ") was taken by the files before it";
        } else {
            spent += cost_of(file);
            entry["lines"] = file.lines;
        }
        files.push_back(std::move(entry));
    }
    return files;
}

}  // namespace memusagestat
