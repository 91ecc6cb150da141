// SPDX-License-Identifier: MIT
#include "reports/stack_peaks_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

namespace memusagestat {
namespace {

std::string grouped(uint64_t value) {
    std::string digits = std::to_string(value), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string bytes_column(uint64_t bytes) {
    char text[48];
    std::snprintf(text, sizeof text, "%13s B", grouped(bytes).c_str());
    return text;
}

std::string seconds(uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(ns) / 1e9);
    return text;
}

struct FrameName {
    std::string function;
    std::string location;
};

// A frame's function (the one holding the frame, with the functions inlined into it at
// that point) and where in it: the innermost inlined function's line.
FrameName name_at(uint64_t ip, Symbolizer& symbolizer, const std::vector<SourceFrame>*& source) {
    const std::vector<SourceFrame>& frames = symbolizer.frames_of(ip);
    source = &frames;
    FrameName name;
    if (frames.empty()) return {"?", ""};
    const SourceFrame& holder = frames.back();
    name.function = holder.function.empty() ? "?" : holder.function;
    for (size_t k = frames.size() - 1; k > 0; --k)
        name.function += " > " + (frames[k - 1].function.empty() ? "?" : frames[k - 1].function);
    const SourceFrame& innermost = frames.front();
    if (!innermost.file.empty()) {
        size_t slash = innermost.file.rfind('/');
        name.location = innermost.file.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
                        std::to_string(innermost.line);
    } else if (name.function == "?" && !innermost.module.empty()) {
        char offset[24];
        std::snprintf(offset, sizeof offset, "+0x%" PRIx64, innermost.offset);
        size_t slash = innermost.module.rfind('/');
        name.location =
            innermost.module.substr(slash == std::string::npos ? 0 : slash + 1) + offset;
    }
    return name;
}

FrameName name_of(const StackPeak& peak, size_t i, Symbolizer& symbolizer,
                  const std::vector<SourceFrame>*& source) {
    // Return addresses are looked up one byte back, inside the call; the interrupted
    // instruction of a tick's innermost frame is looked up one byte on to stay on it.
    bool exact = peak.from_tick && i == 0;
    return name_at(peak.frames[i].ip + exact, symbolizer, source);
}

// A cut stack's outer frames by function, the most bytes first.
struct OuterFunction {
    std::string function;
    uint64_t bytes = 0;
    uint32_t frames = 0;
};
std::vector<OuterFunction> outer_functions(const StackPeak& peak, Symbolizer& symbolizer) {
    std::vector<OuterFunction> functions;
    for (const StackPeak::OuterFrame& frame : peak.outer) {
        const std::vector<SourceFrame>* source = nullptr;
        std::string function = frame.ip == 0 ? std::string("(more frames)")
                                             : name_at(frame.ip, symbolizer, source).function;
        auto same = [&](const OuterFunction& f) { return f.function == function; };
        auto found = std::find_if(functions.begin(), functions.end(), same);
        if (found == functions.end()) found = functions.insert(functions.end(), {function, 0, 0});
        found->bytes += frame.bytes;
        found->frames += frame.frames;
    }
    std::stable_sort(
        functions.begin(), functions.end(),
        [](const OuterFunction& a, const OuterFunction& b) { return a.bytes > b.bytes; });
    return functions;
}

const char* stack_words(PeakStack stack) {
    return stack == PeakStack::signal ? "on its alternate signal stack (sigaltstack)"
                                      : "on its own stack";
}

std::string thread_title(const StackPeak& peak) {
    std::string title = "Thread " + std::to_string(peak.tid);
    std::string words = peak.main_thread ? "main" : "";
    if (!peak.thread_name.empty())
        words += (words.empty() ? "" : ", ") + std::string("\"") + peak.thread_name + "\"";
    if (!words.empty()) title += " (" + words + ")";
    return title;
}

void write_peak(std::string& out, const StackPeak& peak, Symbolizer& symbolizer) {
    out += "\n" + thread_title(peak) + ": " + grouped(peak.bytes) + " bytes at " +
           seconds(peak.time_ns) + ", " + stack_words(peak.stack) +
           (peak.from_tick ? " (profiling tick)" : " (allocation call)") + "\n";
    if (peak.frames.empty()) {
        out += "   no frames (the unwinder could not follow this stack)\n";
        return;
    }
    std::vector<StackPeakLine> lines = stack_peak_lines(peak, symbolizer);
    out += "  outermost first:\n";
    uint64_t shown = peak.outer_bytes();
    std::vector<OuterFunction> outer = outer_functions(peak, symbolizer);
    const size_t listed = peak.frames.size() - (peak.frames_cut ? 1 : 0);
    if (!outer.empty()) {
        uint64_t frames = 0;
        std::string names;
        size_t named = 0;
        for (const OuterFunction& function : outer) {
            frames += function.frames;
            if (named++ == 6) names += ", ...";
            if (named > 6) continue;
            names += (names.empty() ? "" : ", ") + function.function;
            if (function.frames > 1) names += " \u00d7" + std::to_string(function.frames);
        }
        out += bytes_column(shown) + "  (" + std::to_string(frames) + " outer frames beyond the " +
               std::to_string(listed) + " listed: " + names + ")\n";
    } else if (shown != 0) {
        out += bytes_column(shown) + "  (outer frames: more than the " + std::to_string(listed) +
               " listed)\n";
    }
    for (const StackPeakLine& line : lines) {
        shown += line.bytes;
        std::string text = line.cycle != 0
                               ? "cycle of " + std::to_string(line.cycle) + ": " + line.function
                               : line.function;
        if (line.frames > 1) {
            text += " \u00d7" + std::to_string(line.frames) + ", ";
            if (line.least_bytes == line.most_bytes)
                text += grouped(line.least_bytes) + " B each";
            else
                text += grouped(line.least_bytes) + " to " + grouped(line.most_bytes) + " B";
            text += " = " + grouped(line.bytes) + " B";
        }
        if (!line.location.empty()) text += "  " + line.location;
        // "-": a frame of another stack, or above the base, holding none of the measured one.
        out += (line.measured ? bytes_column(line.bytes) : std::string(15, ' ') + "-") + "  " +
               text + "\n";
    }
    // Below the innermost frame shown: the collector's own frames (the allocation call),
    // or frames beyond the deepest the collector keeps.
    if (peak.bytes > shown)
        out += bytes_column(peak.bytes - shown) + "  (below: the call into the collector)\n";

    // By the functions of every frame: the listed ones, and the outer ones folded.
    std::map<std::string, uint64_t> by_function;
    for (const StackPeakFrame& frame : stack_peak_frames(peak, symbolizer))
        by_function[frame.function] += frame.bytes;
    for (const OuterFunction& function : outer) by_function[function.function] += function.bytes;
    std::vector<std::pair<std::string, uint64_t>> ranked(by_function.begin(), by_function.end());
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    out += "  functions by the bytes they held:\n";
    for (const auto& [function, bytes] : ranked) {
        if (bytes == 0) continue;
        char percent[16];
        std::snprintf(
            percent, sizeof percent, " %5.1f%%",
            100.0 * static_cast<double>(bytes) / static_cast<double>(std::max(peak.bytes, shown)));
        out += bytes_column(bytes) + percent + "  " + function + "\n";
    }
}

// Lines [a, a + period) and [b, b + period) name the same functions, one frame each.
bool same_run(const std::vector<StackPeakLine>& lines, size_t a, size_t b, size_t period) {
    for (size_t k = 0; k < period; ++k) {
        const StackPeakLine& x = lines[a + k];
        const StackPeakLine& y = lines[b + k];
        if (x.function != y.function || x.function == "?" || x.frames != 1 || y.frames != 1 ||
            x.measured != y.measured)
            return false;
    }
    return true;
}

// A recursion through several functions (a cycle: an interpreter's function calling C
// that calls back into it) repeats a run of lines: three or more repetitions of a run of
// two to eight functions fold into one line for the run, counted in cycles.
std::vector<StackPeakLine> fold_cycles(std::vector<StackPeakLine> lines) {
    constexpr size_t kLongestCycle = 8, kFewestRepeats = 3;
    std::vector<StackPeakLine> folded;
    for (size_t i = 0; i < lines.size();) {
        size_t best_period = 0, best_repeats = 1;
        for (size_t period = 2; period <= kLongestCycle; ++period) {
            size_t repeats = 1;
            while (i + (repeats + 1) * period <= lines.size() &&
                   same_run(lines, i, i + repeats * period, period))
                ++repeats;
            if (repeats >= kFewestRepeats && repeats * period > best_repeats * best_period) {
                best_period = period;
                best_repeats = repeats;
            }
        }
        if (best_period == 0) {
            folded.push_back(std::move(lines[i++]));
            continue;
        }
        StackPeakLine cycle;
        for (size_t k = 0; k < best_period; ++k)
            cycle.function += (k == 0 ? "" : " > ") + lines[i + k].function;
        cycle.location = lines[i].location;
        cycle.frames = static_cast<unsigned>(best_repeats);
        cycle.cycle = static_cast<unsigned>(best_period);
        cycle.measured = lines[i].measured;
        for (size_t r = 0; r < best_repeats; ++r) {
            uint64_t bytes = 0;
            for (size_t k = 0; k < best_period; ++k) bytes += lines[i + r * best_period + k].bytes;
            cycle.bytes += bytes;
            cycle.least_bytes = r == 0 ? bytes : std::min(cycle.least_bytes, bytes);
            cycle.most_bytes = std::max(cycle.most_bytes, bytes);
        }
        folded.push_back(std::move(cycle));
        i += best_period * best_repeats;
    }
    return folded;
}

}  // namespace

std::vector<const StackPeak*> ordered_stack_peaks(const SitesProfile& profile) {
    std::vector<const StackPeak*> peaks;
    for (const StackPeak& peak : profile.stack_peaks) peaks.push_back(&peak);
    // The main thread first, then the deepest.
    std::stable_sort(peaks.begin(), peaks.end(), [](const StackPeak* a, const StackPeak* b) {
        if (a->main_thread != b->main_thread) return a->main_thread;
        return a->bytes > b->bytes;
    });
    return peaks;
}

std::vector<StackPeakFrame> stack_peak_frames(const StackPeak& peak, Symbolizer& symbolizer) {
    std::vector<StackPeakFrame> frames;
    // The outermost frame kept of a cut stack holds an unknown part of outer_bytes().
    size_t outermost = peak.frames.size() - (peak.frames_cut && !peak.frames.empty() ? 1 : 0);
    for (size_t i = outermost; i > 0; --i) {
        StackPeakFrame frame;
        FrameName name = name_of(peak, i - 1, symbolizer, frame.source);
        frame.function = std::move(name.function);
        frame.location = std::move(name.location);
        frame.bytes = peak.frame_bytes(i - 1);
        uint64_t sp = peak.frames[i - 1].sp;
        frame.measured = sp < peak.base && sp + peak.bytes >= peak.base;
        // The outermost frame on an alternate signal stack, called from another stack, is
        // the kernel's signal frame (the C library's return trampoline, often nameless).
        if (frame.function == "?" && frame.measured && peak.stack == PeakStack::signal &&
            i < peak.frames.size() && peak.frames[i].sp >= peak.base) {
            frame.function = "(signal frame)";
            frame.signal_frame = true;
        }
        frames.push_back(std::move(frame));
    }
    return frames;
}

std::vector<StackPeakLine> stack_peak_lines(const StackPeak& peak, Symbolizer& symbolizer) {
    std::vector<StackPeakLine> lines;
    // A folded line's location is the one most of its frames share: the recursive call,
    // rather than the innermost frame's call out of the recursion.
    std::map<std::string, unsigned> locations;
    auto settle_location = [&] {
        unsigned most = 0;
        for (const auto& [location, count] : locations) {
            if (count > most) {
                most = count;
                lines.back().location = location;
            }
        }
        locations.clear();
    };
    for (const StackPeakFrame& frame : stack_peak_frames(peak, symbolizer)) {
        const uint64_t bytes = frame.bytes;
        if (!lines.empty() && lines.back().function == frame.function && frame.function != "?" &&
            lines.back().measured == frame.measured) {
            StackPeakLine& line = lines.back();
            ++line.frames;
            line.bytes += bytes;
            line.least_bytes = std::min(line.least_bytes, bytes);
            line.most_bytes = std::max(line.most_bytes, bytes);
            if (!frame.location.empty()) ++locations[frame.location];
            continue;
        }
        if (!lines.empty()) settle_location();
        lines.push_back({frame.function, frame.location, 1, bytes, bytes, bytes, frame.measured});
        if (!frame.location.empty()) ++locations[frame.location];
    }
    if (!lines.empty()) settle_location();
    return fold_cycles(std::move(lines));
}

std::string stack_peak_report(const SitesProfile& profile, Symbolizer& symbolizer,
                              const StackPeakReportOptions& options) {
    if (profile.stack_peaks.empty()) return {};
    std::vector<const StackPeak*> peaks = ordered_stack_peaks(profile);
    size_t others = peaks.size() - (peaks.front()->main_thread ? 1 : 0);
    std::string out =
        "Stack peaks (each thread's frames where its stack was deepest, within 1 KiB "
        "or 5%)";
    if (others > options.top)
        out += ": the main thread and the " + std::to_string(options.top) + " deepest of " +
               std::to_string(others) + " other threads";
    out += "\n";
    size_t shown_others = 0;
    for (const StackPeak* peak : peaks) {
        if (!peak->main_thread && shown_others++ >= options.top) break;
        write_peak(out, *peak, symbolizer);
    }
    if (profile.stack_peaks_dropped)
        out +=
            "\n(more threads reached a stack peak than the collector keeps: some ended "
            "threads' smaller peaks are not listed)\n";
    return out;
}

}  // namespace memusagestat
