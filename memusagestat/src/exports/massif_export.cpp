#include "exports/massif_export.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>

namespace memusagestat {
namespace {

// One frame of the tree: the bytes of every site whose stack passes through it.
struct Node {
    std::string label;  // "0x...: function (file:line)"
    uint64_t bytes = 0;
    std::map<std::string, std::unique_ptr<Node>> children;
};

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIX64, value);
    return text;
}

// ms_print takes '#' to the end of a line for a comment.
std::string without_hash(std::string text) {
    std::replace(text.begin(), text.end(), '#', ':');
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

std::string frame_label(const SourceFrame& frame, const SitesProfile& profile) {
    uint64_t address = frame.offset;
    for (const SitesModule& module : profile.modules)
        if (!frame.module.empty() && module.path == frame.module) address += module.load_bias;
    std::string label = hex(address) + ": ";
    if (frame.function.empty())
        label += "???";
    else
        label += frame.function;
    if (!frame.file.empty())
        label += " (" + frame.file + ":" + std::to_string(frame.line) + ")";
    else if (!frame.module.empty())
        label += " (in " + frame.module + ")";
    return without_hash(label);
}

// The labels of a site's stack, allocation point first: the wrapper, the frames, the cut.
std::vector<std::string> stack_labels(const ShownSite& site, const SitesProfile& profile) {
    std::vector<std::string> labels;
    if (!site.via.empty()) labels.push_back("0x0: " + without_hash(site.via));
    for (const SourceFrame& frame : site.frames) labels.push_back(frame_label(frame, profile));
    if (site.frames.empty())
        for (const std::string& line : site.lines) labels.push_back("0x0: " + without_hash(line));
    if (site.cut_at != 0) labels.push_back("0x0: " + cut_root(site.cut_at));
    return labels;
}

void write_node(std::string& out, const Node& node, int depth) {
    std::vector<const Node*> children;
    for (const auto& [label, child] : node.children) children.push_back(child.get());
    std::stable_sort(children.begin(), children.end(),
                     [](const Node* a, const Node* b) { return a->bytes > b->bytes; });
    out += std::string(static_cast<size_t>(depth), ' ') + "n" + std::to_string(children.size()) +
           ": " + std::to_string(node.bytes) + " " + node.label + "\n";
    for (const Node* child : children) write_node(out, *child, depth + 1);
}

using SiteValue = std::function<uint64_t(const AllocationSite&)>;

// A detailed snapshot's tree of `value` over the sites; its total.
uint64_t write_tree(std::string& out, const SitesProfile& profile,
                    const std::vector<ShownSite>& sites, const SiteValue& value) {
    Node root;
    root.label = "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.";
    for (const ShownSite& site : sites) {
        uint64_t bytes = value(site.figures);
        if (bytes == 0) continue;
        root.bytes += bytes;
        Node* node = &root;
        for (const std::string& label : stack_labels(site, profile)) {
            std::unique_ptr<Node>& child = node->children[label];
            if (!child) {
                child = std::make_unique<Node>();
                child->label = label;
            }
            child->bytes += bytes;
            node = child.get();
        }
    }
    write_node(out, root, 0);
    return root.bytes;
}

void write_snapshot(std::string& out, int number, double ms, uint64_t heap_bytes,
                    const char* tree) {
    char head[256];
    std::snprintf(head, sizeof head,
                  "#-----------\nsnapshot=%d\n#-----------\ntime=%.0f\nmem_heap_B=%" PRIu64
                  "\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=%s\n",
                  number, ms, heap_bytes, tree);
    out += head;
}

}  // namespace

std::string massif_text(const SitesProfile& profile, const std::vector<ShownSite>& sites,
                        const MassifRun& run) {
    std::string command = run.command;
    if (command.empty() && !profile.modules.empty()) command = profile.modules.front().path;
    std::string out = "desc: memusage allocation sites";
    if (profile.sample_interval != 0)
        out += " (estimates from sampling every " + std::to_string(profile.sample_interval) +
               " bytes)";
    out += "\ncmd: " + without_hash(command) + "\ntime_unit: ms\n";
    int number = 0;
    write_snapshot(out, number++, 0, 0, "empty");
    size_t next = 0;
    auto snapshots_until = [&](double ms) {
        for (; next < run.heap_over_time.size() && run.heap_over_time[next].first <= ms; ++next)
            write_snapshot(out, number++, run.heap_over_time[next].first,
                           run.heap_over_time[next].second, "empty");
    };

    // A tree is never larger than its snapshot's heap (ms_print checks): sampled sites'
    // estimates may sum above the peak the collector measured.
    AllocationSite total;
    for (const ShownSite& site : sites) add_figures(total, site.figures);
    snapshots_until(run.peak_ms);
    write_snapshot(out, number++, run.peak_ms, std::max(profile.heap_peak, total.bytes_at_peak),
                   "peak");
    write_tree(out, profile, sites, [](const AllocationSite& s) { return s.bytes_at_peak; });
    const double end_ms = std::max(run.end_ms, run.peak_ms);
    snapshots_until(end_ms);
    write_snapshot(out, number, end_ms, total.bytes_leaked(), "detailed");
    write_tree(out, profile, sites, [](const AllocationSite& s) { return s.bytes_leaked(); });
    return out;
}

}  // namespace memusagestat
