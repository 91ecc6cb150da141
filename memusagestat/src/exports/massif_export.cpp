// SPDX-License-Identifier: MIT
#include "exports/massif_export.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <string_view>
#include <unordered_map>

#include "output/whole_file.h"

namespace memusagestat {
namespace {

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

// The file, written a stretch at a time: a detailed snapshot of a large run is tens of
// megabytes, the file all of them.
class Out {
  public:
    explicit Out(std::FILE* file) : file_(file) {}
    void operator+=(std::string_view more) {
        text_ += more;
        if (text_.size() >= (size_t{1} << 20)) flush();
    }
    void flush() {
        if (!text_.empty() && error == 0 &&
            std::fwrite(text_.data(), 1, text_.size(), file_) != text_.size())
            error = errno;
        text_.clear();
    }
    int error = 0;

  private:
    std::FILE* file_;
    std::string text_;
};

// Every stack's labels, each label once: a detailed snapshot's tree refers to them by
// number, so it holds no strings of its own however many snapshots there are.
class Labels {
  public:
    Labels(const SitesProfile& profile, const std::vector<ShownSite>& sites) {
        stacks_.reserve(sites.size());
        for (const ShownSite& site : sites) {
            std::vector<uint32_t> stack;
            for (std::string& label : stack_labels(site, profile)) stack.push_back(id(label));
            stacks_.push_back(std::move(stack));
        }
        rest_ = id("0x0: (bytes no allocation site accounts for)");
        // Siblings of equal bytes come in their labels' order.
        std::vector<uint32_t> order(text_.size());
        for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](uint32_t a, uint32_t b) { return text_[a] < text_[b]; });
        rank_.resize(order.size());
        for (uint32_t i = 0; i < order.size(); ++i) rank_[order[i]] = i;
        ids_ = {};
    }
    const std::vector<uint32_t>& stack(size_t site) const { return stacks_[site]; }
    const std::string& text(uint32_t label) const { return text_[label]; }
    uint32_t rank(uint32_t label) const { return rank_[label]; }
    uint32_t rest() const { return rest_; }

  private:
    uint32_t id(const std::string& label) {
        auto [found, made] = ids_.emplace(label, static_cast<uint32_t>(text_.size()));
        if (made) text_.push_back(label);
        return found->second;
    }
    std::unordered_map<std::string, uint32_t> ids_;
    std::vector<std::string> text_;
    std::vector<uint32_t> rank_;
    std::vector<std::vector<uint32_t>> stacks_;
    uint32_t rest_ = 0;
};

// A detailed snapshot's tree: one node a frame, the bytes of every site whose stack passes
// through it; node 0 is the root.
struct Tree {
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Node {
        uint64_t bytes = 0;
        uint32_t label = kNone;  // kNone: the root
        uint32_t first_child = kNone, next_sibling = kNone;
    };
    std::vector<Node> nodes{Node{}};
    std::unordered_map<uint64_t, uint32_t> child_of;  // parent << 32 | label: the child

    uint32_t child(uint32_t parent, uint32_t label) {
        auto [found, made] =
            child_of.emplace(uint64_t{parent} << 32 | label, static_cast<uint32_t>(nodes.size()));
        if (made) {
            nodes.push_back(Node{0, label, kNone, nodes[parent].first_child});
            nodes[parent].first_child = found->second;
        }
        return found->second;
    }
};

void write_node(Out& out, const Tree& tree, const Labels& labels, uint32_t at, int depth,
                const std::string& root_label) {
    const Tree::Node& node = tree.nodes[at];
    std::vector<uint32_t> children;
    for (uint32_t c = node.first_child; c != Tree::kNone; c = tree.nodes[c].next_sibling)
        children.push_back(c);
    // The most bytes first; between equals, the labels' order.
    std::sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
        const Tree::Node &x = tree.nodes[a], &y = tree.nodes[b];
        return x.bytes != y.bytes ? x.bytes > y.bytes : labels.rank(x.label) < labels.rank(y.label);
    });
    std::string line(static_cast<size_t>(depth), ' ');
    line += "n" + std::to_string(children.size()) + ": " + std::to_string(node.bytes) + " ";
    line += node.label == Tree::kNone ? root_label : labels.text(node.label);
    line += "\n";
    out += line;
    for (uint32_t child : children) write_node(out, tree, labels, child, depth + 1, root_label);
}

void write_snapshot(Out& out, int number, double time, uint64_t heap_bytes, const char* tree) {
    char head[256];
    std::snprintf(head, sizeof head,
                  "#-----------\nsnapshot=%d\n#-----------\ntime=%.0f\nmem_heap_B=%" PRIu64
                  "\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=%s\n",
                  number, time, heap_bytes, tree);
    out += head;
}

// A detailed snapshot: `bytes[i]` for the i-th site, and what no site accounts for of
// `heap` (sampled sites' estimates, blocks the recording names no shown site for) as an
// entry of its own. Its heap is the tree's total: the larger of `heap` and the sites' sum
// (ms_print checks that no entry is larger than the snapshot).
void write_detailed(Out& out, const Labels& labels, const std::vector<ShownSite>& sites, int number,
                    double time, uint64_t heap, const std::vector<uint64_t>& bytes,
                    const char* kind) {
    Tree tree;
    for (size_t i = 0; i < sites.size() && i < bytes.size(); ++i) {
        if (bytes[i] == 0) continue;
        tree.nodes[0].bytes += bytes[i];
        uint32_t node = 0;
        for (uint32_t label : labels.stack(i)) {
            node = tree.child(node, label);
            tree.nodes[node].bytes += bytes[i];
        }
    }
    if (heap > tree.nodes[0].bytes) {
        const uint64_t rest = heap - tree.nodes[0].bytes;
        tree.nodes[tree.child(0, labels.rest())].bytes = rest;
        tree.nodes[0].bytes = heap;
    }
    tree.child_of = {};
    write_snapshot(out, number, time, tree.nodes[0].bytes, kind);
    write_node(out, tree, labels, 0, 0,
               "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.");
}

void write_massif(Out& out, const SitesProfile& profile, const std::vector<ShownSite>& sites,
                  const MassifRun& run) {
    const Labels labels(profile, sites);
    std::string command = run.command;
    if (command.empty() && !profile.modules.empty()) command = profile.modules.front().path;
    std::string head = "desc: memusage allocation sites";
    if (profile.sample_interval != 0)
        head += " (estimates from sampling every " + std::to_string(profile.sample_interval) +
                " bytes)";
    head += "\ncmd: " + without_hash(command) + "\ntime_unit: B\n";
    out += head;
    int number = 0;
    write_snapshot(out, number++, 0, 0, "empty");
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
            write_detailed(out, labels, sites, number++, point.time, point.heap, bytes, "detailed");
        }
    };
    const auto of_sites = [&](uint64_t (*value)(const AllocationSite&)) {
        std::vector<uint64_t> bytes;
        bytes.reserve(sites.size());
        for (const ShownSite& site : sites) bytes.push_back(value(site.figures));
        return bytes;
    };

    snapshots_until(run.peak_time);
    write_detailed(out, labels, sites, number++, run.peak_time, profile.heap_peak,
                   of_sites([](const AllocationSite& s) { return s.bytes_at_peak; }), "peak");
    const double end_time = std::max(run.end_time, run.peak_time);
    snapshots_until(end_time);
    write_detailed(out, labels, sites, number++, end_time, 0,
                   of_sites([](const AllocationSite& s) { return s.bytes_leaked(); }), "detailed");
}

}  // namespace

memusage::Status write_massif_file(const std::string& path, const SitesProfile& profile,
                                   const std::vector<ShownSite>& sites, const MassifRun& run) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return memusage::Failure{cannot_write(path, errno)};
    Out out(file);
    write_massif(out, profile, sites, run);
    out.flush();
    int error = out.error;
    // A buffered write fails only now: the close's errno when the writes all went.
    if (std::fclose(file) != 0 && error == 0) error = errno;
    if (error != 0) return memusage::Failure{cannot_write(path, error)};
    return {};
}

}  // namespace memusagestat
