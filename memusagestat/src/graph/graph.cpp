// SPDX-License-Identifier: MIT
// draw_graph: data file -> envelope -> picture in the format the output name asks for.
#include "memusagestat/graph.h"

#include <algorithm>
#include <cstdio>

#include "draw/lettering.h"
#include "draw/picture_output.h"
#include "graph/build_envelope.h"
#include "graph/envelope.h"
#include "graph/plot.h"
#include "read/mapped_data_file.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

void warn(const GraphOptions& options, const std::string& message) {
    if (options.on_warning)
        options.on_warning(message);
    else
        std::fprintf(stderr, "memusagestat: warning: %s\n", message.c_str());
}

Status render(const std::string& out_path, const PlotSpec& spec, const EnvelopeSeries& series,
              const std::string& data_path, const GraphOptions& options) {
    PictureOutput output;
    if (Status opened = output.open(out_path, spec.width, spec.height, spec.title); !opened.ok())
        return opened;
    plot_graph(output.context(), spec, series);
    if (const std::string warning = output.lettering_warning(); !warning.empty())
        warn(options, warning);
    return output.finish({{"Title", spec.title},
                          {"Source", data_path},
                          {"Software", "memusagestat (memusage " MEMUSAGE_VERSION ")"}});
}

}  // namespace

Status picture_size_error(unsigned width, unsigned height) {
    if (width <= kMaxPictureSide && height <= kMaxPictureSide) return {};
    return Failure{"picture size " + std::to_string(width) + "x" + std::to_string(height) +
                   " too large (at most " + std::to_string(kMaxPictureSide) + " pixels a side)"};
}

Status draw_graph(const std::string& data_path, const std::string& out_path,
                  const GraphOptions& options) {
    if (Status size = picture_size_error(options.width, options.height); !size.ok()) return size;
    PlotSpec spec;
    spec.width = std::max(options.width, kMinPictureWidth);
    spec.height = std::max(options.height, kMinPictureHeight);
    spec.title = with_valid_utf8(options.title);
    spec.total = options.total;

    MappedDataFile file;
    if (Status opened = file.open(data_path); !opened.ok())
        return Failure{data_path + ": " + opened.error()};
    const Profile& profile = file.profile();
    if (profile.ignored_tail_bytes != 0)
        warn(options, data_path + ": ignoring the last " +
                          std::to_string(profile.ignored_tail_bytes) +
                          " bytes, a partial record (the run was killed while writing)");
    if (profile.header.repaired)
        warn(options, data_path +
                          ": the file is incomplete (the run died, or writing it failed): its "
                          "peaks were recovered from its records");

    const ProfileHeader& header = profile.header;
    spec.event_count = profile.events.size();
    spec.start_time = header.start_time;
    spec.end_time = header.end_time;
    // A run whose clock did not advance has no time axis to draw: fall back to calls.
    spec.time_based = options.time_based && header.end_time > header.start_time;
    if (options.time_based && !spec.time_based)
        warn(options, data_path + ": the run spans no time; drawing by calls instead");

    const Placement placement{spec.time_based, plot_columns(spec.width), spec.total,
                              header.start_time, header.end_time};
    const EnvelopeSeries series =
        build_envelope(file, placement, envelope_parts(profile.events.size()));
    if (const uint64_t timeless = profile.timeless_tail_records + series.timeless_records())
        warn(options, data_path + ": ignoring " + std::to_string(timeless) +
                          " records with time 0: room made for records, or a record cut short, "
                          "by a kill while the run was writing");

    // A heap beyond any address space is a counter that wrapped below zero: such records
    // keep their place and their stack, but the heap curve and the scale leave them out.
    const bool plausible_peaks = is_plausible_heap(header.heap_peak);
    if (const uint64_t implausible = series.implausible_heap_records(); implausible != 0)
        warn(options, data_path + ": " + std::to_string(implausible) + " of " +
                          std::to_string(profile.events.size()) +
                          " records hold an implausible heap size, more than any machine can "
                          "address (a counter that went below zero, as glibc's collector's does "
                          "with -m when a program unmaps memory it never counted); the heap "
                          "curve leaves them out");
    else if (!plausible_peaks)
        warn(options, data_path + ": the header's heap peak, " + std::to_string(header.heap_peak) +
                          ", is implausible (a counter that went below zero); the scale "
                          "leaves it out");

    // The data can exceed a header written by a different run or a damaged file; the
    // scale then grows so that no curve leaves the frame.
    const uint64_t heap_top = std::max(plausible_peaks ? header.heap_peak : 0, series.max_heap());
    const uint64_t stack_top = std::max(header.stack_peak, series.max_stack());
    if (spec.total) {
        const uint64_t total_peak = is_plausible_heap(header.total_peak) ? header.total_peak : 0;
        const uint64_t shared = std::max({total_peak, series.max_total(), heap_top, stack_top});
        spec.heap_top = spec.stack_top = shared;
    } else {
        spec.heap_top = heap_top;
        spec.stack_top = stack_top;
    }
    return render(out_path, spec, series, data_path, options);
}

}  // namespace memusagestat
