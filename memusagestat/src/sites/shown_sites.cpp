// SPDX-License-Identifier: MIT
#include "sites/shown_sites.h"

#include <memusage/sites_format.h>

#include <cinttypes>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "sites/definitions.h"
#include "sites/frame_folding.h"

namespace memusagestat {
namespace {

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIx64, value);
    return text;
}

struct FoldedStack {
    std::vector<const SourceFrame*> frames;
    std::string placeholder;
    std::string via;
    AllocationSite kept;  // what the runtimes keep of the site's blocks (definitions.h)
    bool kept_whole = false;
};

FoldedStack folded_stack(const AllocationSite& site, const SitesProfile& profile,
                         Symbolizer& symbolizer) {
    FoldedStack folded;
    std::vector<SourceFrame> frames;  // a copy for the folding, gone with this site
    std::vector<const SourceFrame*> cached;
    for (uint64_t address : site.frames) {
        const std::vector<SourceFrame>& expanded = symbolizer.frames_of(address);
        frames.insert(frames.end(), expanded.begin(), expanded.end());
        for (const SourceFrame& frame : expanded) cached.push_back(&frame);
    }
    if (frames.empty()) {
        if (profile.unwinder_missing)
            folded.placeholder = "(no stack: libunwind.so.8 could not be loaded)";
        else if (site.id == memusage::sites_format::kTableFullSiteId)
            folded.placeholder = "(stacks first seen after the stack table filled up)";
        else
            folded.placeholder = "(no stack)";
        return folded;
    }
    const ShownFrames shown = shown_frames(frames);
    folded.kept = kept_of_site(site, profile, frames, shown, folded.kept_whole);
    if (shown.via != nullptr)
        folded.via =
            shown.via->function.empty() ? describe(*shown.via) : short_name(shown.via->function);
    folded.frames.assign(cached.begin() + static_cast<ptrdiff_t>(shown.first),
                         cached.begin() + static_cast<ptrdiff_t>(shown.end));
    return folded;
}

// Each frame's line (describe()) as a number, the same for frames described alike, so that a
// stack's key is a short row of numbers rather than its text.
class LineNumbers {
  public:
    uint32_t of(const SourceFrame* frame) {
        auto found = by_frame_.find(frame);
        if (found != by_frame_.end()) return found->second;
        const uint32_t number =
            by_text_.emplace(describe(*frame), static_cast<uint32_t>(by_text_.size()))
                .first->second;
        by_frame_.emplace(frame, number);
        return number;
    }
    uint32_t of(const std::string& text) {
        return by_text_.emplace(text, static_cast<uint32_t>(by_text_.size())).first->second;
    }

  private:
    std::unordered_map<const SourceFrame*, uint32_t> by_frame_;
    std::unordered_map<std::string, uint32_t> by_text_;
};

}  // namespace

std::string describe(const SourceFrame& frame) {
    std::string text;
    if (!frame.function.empty() && !frame.file.empty())
        text = frame.function + " (" + frame.file + ":" + std::to_string(frame.line) + ")";
    else if (!frame.function.empty())
        text = frame.function + " (in " + frame.module + ")";
    else if (!frame.module.empty())
        text = frame.module + "+" + hex(frame.offset);
    else
        text = hex(frame.offset);
    if (frame.inlined) text += " [inlined]";
    return text;
}

std::string ShownSite::line(size_t index) const {
    return frames.empty() ? placeholder : describe(*frames[index]);
}

AllocationSite ShownSite::program_figures() const {
    AllocationSite program = figures;
    program.blocks_allocated -= kept_by_runtime.blocks_allocated;
    program.bytes_allocated -= kept_by_runtime.bytes_allocated;
    program.blocks_freed -= kept_by_runtime.blocks_freed;
    program.bytes_freed -= kept_by_runtime.bytes_freed;
    program.bytes_at_peak -= kept_by_runtime.bytes_at_peak;
    program.blocks_at_peak -= kept_by_runtime.blocks_at_peak;
    program.temporary_blocks -= kept_by_runtime.temporary_blocks;
    program.temporary_bytes -= kept_by_runtime.temporary_bytes;
    return program;
}

void add_figures(AllocationSite& into, const AllocationSite& site) {
    into.blocks_allocated += site.blocks_allocated;
    into.bytes_allocated += site.bytes_allocated;
    into.blocks_freed += site.blocks_freed;
    into.bytes_freed += site.bytes_freed;
    into.bytes_at_peak += site.bytes_at_peak;
    into.blocks_at_peak += site.blocks_at_peak;
    into.temporary_blocks += site.temporary_blocks;
    into.temporary_bytes += site.temporary_bytes;
}

std::string plural(uint64_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

uint32_t cut_at(const AllocationSite& site, const SitesProfile& profile) {
    const bool cut = profile.max_depth != 0 && site.frames.size() >= profile.max_depth;
    return cut ? profile.max_depth : 0;
}

std::string cut_root(uint32_t cut_at) { return "[cut at " + std::to_string(cut_at) + " frames]"; }

std::string kept_by_runtime_line(uint64_t bytes, uint64_t blocks) {
    if (blocks == 0 && bytes == 0) return "";
    return "\nNot counted: " + plural(bytes, "byte", "bytes") + " in " +
           plural(blocks, "block", "blocks") +
           " the C and C++ runtimes keep until exit (stdio buffers, dlopen's and "
           "pthread_create's records, libstdc++'s exception pool)\n";
}

void write_entry(std::string& out, size_t rank, const std::string& figures, const ShownSite& site) {
    out += std::string(rank < 10 ? "  " : " ") + "#" + std::to_string(rank) + " " + figures + "\n";
    // A recursion is one line, as the stack-peak report folds it: the frames of one function
    // in a row, "xN", at the line most of them share (the recursive call). Frames and lines
    // go together unless the stack is a placeholder.
    struct Folded {
        size_t first = 0, count = 1;
    };
    std::vector<Folded> folded;
    const bool by_frames = !site.frames.empty();
    for (size_t line = 0; line < site.line_count(); ++line) {
        if (by_frames && line > 1 && !folded.empty() && !site.frames[line]->function.empty() &&
            site.frames[line]->function == site.frames[folded.back().first]->function) {
            ++folded.back().count;
            continue;
        }
        folded.push_back({line, 1});
    }
    size_t written = 0;
    for (const Folded& group : folded) {
        if (written == kShownStackLines && folded.size() > kShownStackLines + 1) {
            size_t more = 0;
            for (size_t i = written; i < folded.size(); ++i) more += folded[i].count;
            out += "       by ... (" + std::to_string(more) + " frames more)\n";
            break;
        }
        // The recursive call: the line of the group's second frame (the first is where the
        // recursion left for the inner call).
        size_t shown = group.count > 1 ? group.first + 1 : group.first;
        out += std::string(written == 0 ? "       at " : "       by ") + site.line(shown);
        if (group.count > 1) out += " \u00d7" + std::to_string(group.count);
        if (written == 0 && !site.via.empty()) out += " via " + site.via;
        out += "\n";
        ++written;
    }
    if (site.cut_at != 0)
        out += "       by ... (the stack was cut at " + std::to_string(site.cut_at) + " frames)\n";
}

void write_grown_at(std::string& out, const ShownSite& site, bool at_exit, uint64_t most,
                    const char* after) {
    for (const ShownSite::Grown& grown : site.grown) {
        uint64_t bytes = at_exit ? grown.bytes_at_exit : grown.bytes_at_peak;
        const uint64_t blocks = at_exit ? grown.blocks_at_exit : grown.blocks_at_peak;
        if (bytes == 0 && blocks == 0) continue;
        if (bytes > most) bytes = most;
        most -= bytes;
        out += "       grown at " + grown.where + ": " + plural(bytes, "byte", "bytes") + " in " +
               plural(blocks, "block", "blocks") + after + "\n";
    }
}

std::string profile_notes(const SitesProfile& profile, const Symbolizer& symbolizer) {
    std::vector<std::string> notes = symbolizer.notes();
    if (profile.ended_by_crash)
        notes.push_back("the program died of a fatal signal: the figures are those of that moment");
    if (profile.stack_table_full)
        notes.push_back(
            "the stack table filled up: stacks first seen after that count as one site");
    if (profile.unwinder_missing)
        notes.push_back("libunwind.so.8 could not be loaded in the run: no stacks were recorded");
    if (profile.since_attach)
        notes.push_back(
            "the collector was attached to the running process (memusage --attach): the figures "
            "are of the blocks allocated since the attach, and what was still allocated at the "
            "detach");
    std::string out;
    if (!notes.empty()) out += "\n";
    for (const std::string& note : notes) out += "Note: " + note + "\n";
    return out;
}

ShownSite shown_site(const AllocationSite& site, const SitesProfile& profile,
                     Symbolizer& symbolizer) {
    std::vector<ShownSite> one = {shown_stack(site, profile, symbolizer)};
    add_grown_at(one, profile, symbolizer);
    return std::move(one.front());
}

ShownSite shown_stack(const AllocationSite& site, const SitesProfile& profile,
                      Symbolizer& symbolizer) {
    FoldedStack folded = folded_stack(site, profile, symbolizer);
    ShownSite shown;
    shown.frames = std::move(folded.frames);
    shown.placeholder = std::move(folded.placeholder);
    shown.via = std::move(folded.via);
    shown.figures = site;
    shown.ids = {site.id};
    add_figures(shown.kept_by_runtime, folded.kept);
    if (folded.kept_whole) shown.kept_ids = {site.id};
    shown.cut_at = cut_at(site, profile);
    return shown;
}

std::vector<ShownSite> shown_sites(const SitesProfile& profile, Symbolizer& symbolizer) {
    std::vector<ShownSite> shown;
    // Sites are one when their cut, wrapper and lines are: the key holds their numbers.
    LineNumbers numbers;
    std::map<std::vector<uint32_t>, size_t> by_key;
    for (const AllocationSite& site : profile.sites) {
        if (site.blocks_allocated == 0 && site.bytes_allocated == 0) continue;
        FoldedStack folded = folded_stack(site, profile, symbolizer);
        const uint32_t cut = cut_at(site, profile);
        std::vector<uint32_t> key{cut, numbers.of(folded.via)};
        if (folded.frames.empty()) key.push_back(numbers.of(folded.placeholder));
        for (const SourceFrame* frame : folded.frames) key.push_back(numbers.of(frame));
        auto [found, inserted] = by_key.emplace(std::move(key), shown.size());
        if (inserted) {
            ShownSite entry;
            entry.frames = std::move(folded.frames);
            entry.placeholder = std::move(folded.placeholder);
            entry.via = std::move(folded.via);
            entry.figures.id = site.id;
            entry.cut_at = cut;
            shown.push_back(std::move(entry));
        }
        ShownSite& into = shown[found->second];
        add_figures(into.figures, site);
        into.ids.push_back(site.id);
        add_figures(into.kept_by_runtime, folded.kept);
        if (folded.kept_whole) into.kept_ids.push_back(site.id);
    }
    add_grown_at(shown, profile, symbolizer);
    return shown;
}

}  // namespace memusagestat
