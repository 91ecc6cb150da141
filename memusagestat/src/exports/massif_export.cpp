#include "exports/massif_export.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
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
    for (const SourceFrame* frame : site.frames) labels.push_back(frame_label(*frame, profile));
    if (site.frames.empty() && !site.placeholder.empty())
        labels.push_back("0x0: " + without_hash(site.placeholder));
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

// A detailed snapshot's tree: `bytes[i]` for the i-th site, and what no site accounts for
// of `heap` (sampled sites' estimates, blocks the recording names no shown site for) as an
// entry of its own. Its total, the snapshot's heap: the larger of `heap` and the sites' sum
// (ms_print checks that no entry is larger than the snapshot).
uint64_t write_tree(std::string& out, const SitesProfile& profile,
                    const std::vector<ShownSite>& sites, const std::vector<uint64_t>& bytes,
                    uint64_t heap) {
    Node root;
    root.label = "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.";
    for (size_t i = 0; i < sites.size() && i < bytes.size(); ++i) {
        if (bytes[i] == 0) continue;
        root.bytes += bytes[i];
        Node* node = &root;
        for (const std::string& label : stack_labels(sites[i], profile)) {
            std::unique_ptr<Node>& child = node->children[label];
            if (!child) {
                child = std::make_unique<Node>();
                child->label = label;
            }
            child->bytes += bytes[i];
            node = child.get();
        }
    }
    if (heap > root.bytes) {
        auto rest = std::make_unique<Node>();
        rest->label = "0x0: (bytes no allocation site accounts for)";
        rest->bytes = heap - root.bytes;
        root.bytes = heap;
        root.children[rest->label] = std::move(rest);
    }
    write_node(out, root, 0);
    return root.bytes;
}

void write_snapshot(std::string& out, int number, double time, uint64_t heap_bytes,
                    const char* tree) {
    char head[256];
    std::snprintf(head, sizeof head,
                  "#-----------\nsnapshot=%d\n#-----------\ntime=%.0f\nmem_heap_B=%" PRIu64
                  "\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=%s\n",
                  number, time, heap_bytes, tree);
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
    out += "\ncmd: " + without_hash(command) + "\ntime_unit: B\n";
    int number = 0;
    write_snapshot(out, number++, 0, 0, "empty");
    // The tree comes first, for its total is the snapshot's heap.
    const auto detailed = [&](double time, uint64_t heap, const std::vector<uint64_t>& bytes,
                              const char* kind) {
        std::string tree;
        const uint64_t total = write_tree(tree, profile, sites, bytes, heap);
        write_snapshot(out, number++, time, total, kind);
        out += tree;
    };
    size_t next = 0;
    auto snapshots_until = [&](double time) {
        for (; next < run.heap_over_time.size() && run.heap_over_time[next].time <= time; ++next) {
            const MassifRun::Point& point = run.heap_over_time[next];
            if (!point.detailed) {
                write_snapshot(out, number++, point.time, point.heap, "empty");
                continue;
            }
            std::vector<uint64_t> bytes(sites.size());
            for (const auto& [site, held] : point.held)
                if (site < bytes.size()) bytes[site] = held;
            detailed(point.time, point.heap, bytes, "detailed");
        }
    };
    const auto of_sites = [&](uint64_t (*value)(const AllocationSite&)) {
        std::vector<uint64_t> bytes;
        bytes.reserve(sites.size());
        for (const ShownSite& site : sites) bytes.push_back(value(site.figures));
        return bytes;
    };

    snapshots_until(run.peak_time);
    detailed(run.peak_time, profile.heap_peak,
             of_sites([](const AllocationSite& s) { return s.bytes_at_peak; }), "peak");
    const double end_time = std::max(run.end_time, run.peak_time);
    snapshots_until(end_time);
    detailed(end_time, 0, of_sites([](const AllocationSite& s) { return s.bytes_leaked(); }),
             "detailed");
    return out;
}

}  // namespace memusagestat
