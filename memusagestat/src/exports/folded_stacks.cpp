// SPDX-License-Identifier: MIT
#include "exports/folded_stacks.h"

#include <cinttypes>
#include <cstdio>
#include <map>

#include "sites/definitions.h"
#include "sites/frame_folding.h"

namespace memusagestat {
namespace {

uint64_t value_of(const ShownSite& site, FoldedMetric metric) {
    switch (metric) {
        case FoldedMetric::peak:
            return at_peak(site).bytes;
        case FoldedMetric::leaked:
            return leaked(site).bytes;
        case FoldedMetric::kept:
            return kept_at_exit(site).bytes;
        case FoldedMetric::allocated:
            return allocated(site).bytes;
        case FoldedMetric::blocks:
            return allocated(site).blocks;
    }
    return 0;
}

// The readers split a line at its last space and the stack at ';', so a frame's name may
// hold spaces ("operator new") but never ';' or a line break.
std::string cleaned(std::string name) {
    for (char& c : name)
        if (c == ';' || c == '\n' || c == '\r') c = ':';
    return name;
}

std::string frame_name(const SourceFrame& frame) {
    // The program's functions keep their template arguments (build<40> and build<100> are
    // two boxes); a library's wrapper, the leaf, is named short, as those tools merge best.
    if (!frame.function.empty())
        return cleaned(is_wrapper(frame) ? short_name(frame.function)
                                         : display_name(frame.function));
    std::string module = frame.module.substr(frame.module.rfind('/') + 1);
    char offset[24];
    std::snprintf(offset, sizeof offset, "0x%" PRIx64, frame.offset);
    return cleaned(module.empty() ? offset : module + "+" + offset);
}

}  // namespace

bool parse_folded_metric(const std::string& text, FoldedMetric& metric) {
    static const std::map<std::string, FoldedMetric> names = {
        {"peak", FoldedMetric::peak},
        {"leaked", FoldedMetric::leaked},
        {"kept", FoldedMetric::kept},
        {"allocated", FoldedMetric::allocated},
        {"blocks", FoldedMetric::blocks}};
    auto found = names.find(text);
    if (found == names.end()) return false;
    metric = found->second;
    return true;
}

std::string folded_stacks(const std::vector<ShownSite>& sites, FoldedMetric metric) {
    // Sites that differ only in lines or parameter types fold into one stack here.
    std::map<std::string, uint64_t> stacks;
    for (const ShownSite& site : sites) {
        uint64_t value = value_of(site, metric);
        if (value == 0) continue;
        std::string stack;
        for (auto frame = site.frames.rbegin(); frame != site.frames.rend(); ++frame) {
            if (!stack.empty()) stack += ';';
            stack += frame_name(**frame);
        }
        // No frames: the placeholder ("(no stack)") is the only frame.
        if (site.frames.empty())
            stack = cleaned(site.placeholder.empty() ? "(no stack)" : site.placeholder);
        if (site.cut_at != 0) {
            stack.insert(0, 1, ';');
            stack.insert(0, cut_root(site.cut_at));
        }
        if (!site.via.empty()) stack += ";" + cleaned(site.via);
        stacks[stack] += value;
    }
    std::string out;
    for (const auto& [stack, value] : stacks) out += stack + " " + std::to_string(value) + "\n";
    return out;
}

}  // namespace memusagestat
