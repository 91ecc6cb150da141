// SPDX-License-Identifier: MIT
#include "html/frame_table.h"

#include "sites/shown_sites.h"

namespace memusagestat {
namespace {

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

FrameTable::FrameTable(size_t bound, nlohmann::json& frames, SourceLocator locator)
    : bound_(bound), frames_(frames), sources_(std::move(locator)) {
    frames_ = nlohmann::json::array();
}

int64_t FrameTable::index_of(const SourceFrame& frame) {
    const std::string function = frame.function.empty() ? describe(frame) : frame.function;
    auto key = std::make_tuple(function, frame.file, frame.line, frame.module);
    auto found = indexes_.find(key);
    if (found != indexes_.end()) return found->second;
    if (indexes_.size() >= bound_) {
        full_ = true;
        return -1;
    }
    nlohmann::json entry = {
        {"function", function},
        {"file", frame.file.empty() ? nlohmann::json() : nlohmann::json(frame.file)},
        {"line", frame.file.empty() ? nlohmann::json() : nlohmann::json(frame.line)},
        {"module", base_name(frame.module)}};
    std::optional<std::string> text;
    if (!frame.file.empty()) text = sources_.line(frame.file, frame.comp_dir, frame.line);
    entry["source"] = text ? nlohmann::json(*text) : nlohmann::json();
    const int64_t index = static_cast<int64_t>(frames_.size());
    frames_.push_back(std::move(entry));
    indexes_.emplace(std::move(key), index);
    return index;
}

}  // namespace memusagestat
