#include "reports/stack_peak_report.h"

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
FrameName name_of(const StackPeak& peak, size_t i, Symbolizer& symbolizer,
                  const std::vector<SourceFrame>*& source) {
    // Return addresses are looked up one byte back, inside the call; the interrupted
    // instruction of a tick's innermost frame is looked up one byte on to stay on it.
    bool exact = peak.from_tick && i == 0;
    const std::vector<SourceFrame>& frames = symbolizer.frames_of(peak.frames[i].ip + exact);
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
    if (shown != 0)
        out += bytes_column(shown) + "  (outer frames: more than the " +
               std::to_string(peak.frames.size() - 1) + " kept)\n";
    for (const StackPeakLine& line : lines) {
        shown += line.bytes;
        std::string text = line.function;
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

    std::map<std::string, uint64_t> by_function;
    std::map<std::string, std::string> where;
    for (const StackPeakLine& line : lines) {
        by_function[line.function] += line.bytes;
        if (where[line.function].empty()) where[line.function] = line.location;
    }
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
    return lines;
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
