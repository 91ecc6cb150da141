// SPDX-License-Identifier: MIT
// The pictures' entry points: read the files, name the run, hand the data to the plots.
#include "memusagestat/pictures.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>

#include "draw/lettering.h"
#include "draw/picture_output.h"
#include "draw/picture_style.h"
#include "memusagestat/graph.h"
#include "pictures/address_folding.h"
#include "pictures/block_map.h"
#include "pictures/coverage_buffer.h"
#include "pictures/event_slots.h"
#include "pictures/flame_graph.h"
#include "pictures/heap_by_site.h"
#include "pictures/picture_text.h"
#include "read/event_scan.h"
#include "read/events_reader.h"
#include "sites/site_names.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

// What the pictures of a recording read: the recording, and the sites file when given.
struct Recording {
    EventsReader reader;
    SitesProfile profile;
    std::unique_ptr<Symbolizer> symbolizer;
    std::unique_ptr<SiteNames> names;
    bool has_sites_file = false;

    Status open(const std::string& events_path, const std::string& sites_path,
                const PictureOptions& options) {
        if (Status status = open_recording(reader, events_path); !status.ok()) return status;
        if (!reader.complete())
            warn(options, events_path +
                              ": the recording is incomplete (the run was killed): drawn up to "
                              "its last whole record, blocks still allocated then drawn as "
                              "never freed");
        if (sites_path.empty()) return {};
        if (Status status = read_sites_file(sites_path, profile); !status.ok()) return status;
        has_sites_file = true;
        if (profile.pid != reader.pid())
            warn(options, sites_path + " is of pid " + std::to_string(profile.pid) + ", " +
                              events_path + " of pid " + std::to_string(reader.pid()) +
                              ": the sites may be named wrongly");
        symbolizer = std::make_unique<Symbolizer>(profile.modules);
        names = std::make_unique<SiteNames>(profile, *symbolizer);
        for (const std::string& note : symbolizer->notes()) warn(options, note);
        return {};
    }

    // After a pass: why it stopped early, if it did.
    void report_damage(const std::string& events_path, const PictureOptions& options) const {
        if (!reader.problem().empty())
            warn(options, events_path + ": " + reader.problem() + "; drawn up to there");
    }

    std::string run() const {
        return run_name(has_sites_file ? program_name(profile) : std::string(), reader.pid());
    }

    // Slots by site when the sites can be named, else by thread with a note saying why.
    EventSlots slots(const EventScan& scan, std::string& note) const {
        if (names && reader.has_sites() && scan.any_site) return EventSlots::by_site(*names);
        if (!has_sites_file)
            note = "no sites file (--sites): by thread";
        else
            note = "recorded without sites: by thread";
        return EventSlots::by_thread(scan.thread_bytes, reader.threads());
    }

    EventAxis axis(const EventScan& scan, const EventPlacement& placement) const {
        EventAxis axis;
        axis.time_based = placement.time_based();
        axis.events = scan.events;
        if (scan.end_time > scan.start_time)
            axis.seconds =
                static_cast<double>(scan.end_time - scan.start_time) * reader.seconds_per_cycle();
        return axis;
    }
};

constexpr uint64_t kMaxBlockMapPixels = 16000000;

Status checked_size(const PictureOptions& options, unsigned& width, unsigned& height) {
    if (Status status = picture_size_error(options.width, options.height); !status.ok())
        return status;
    width = std::max(options.width, kMinPictureWidth);
    height = std::max(options.height, kMinPictureHeight);
    return {};
}

// The block map's size: within the pictures' bounds, and the accumulation buffer's (24
// bytes a pixel: 250 MB at 4000x3000), with room for the plot inside the frame.
Status checked_block_map_size(const PictureOptions& options, BlockMapSpec& spec) {
    if (Status status = checked_size(options, spec.width, spec.height); !status.ok()) return status;
    if (static_cast<uint64_t>(spec.width) * spec.height > kMaxBlockMapPixels)
        return Failure{"picture size " + std::to_string(spec.width) + "x" +
                       std::to_string(spec.height) + " too large for a block map (at most " +
                       std::to_string(kMaxBlockMapPixels / 1000000) +
                       " million pixels, such as 4000x4000)"};
    const PlotFrame frame = block_map_frame(spec.width, spec.height);
    if (frame.width() < 20 || frame.height() < 20)
        return Failure{"picture size " + std::to_string(spec.width) + "x" +
                       std::to_string(spec.height) + " too small for a block map"};
    return {};
}

Rgb8 rgb8(Colour c) {
    return Rgb8{static_cast<uint8_t>(std::lround(c.r * 255)),
                static_cast<uint8_t>(std::lround(c.g * 255)),
                static_cast<uint8_t>(std::lround(c.b * 255))};
}

// The colour of a block, and what the colours stand for ("size", "site" or "thread", for
// the title). The colour reads the slots and their colours here: not to be copied.
struct BlockColours {
    std::string what;
    std::optional<EventSlots> slots;
    std::vector<Rgb8> slot_colours;
    std::function<Rgb8(const BlockLife&)> colour;

    BlockColours() = default;
    BlockColours(const BlockColours&) = delete;
    BlockColours& operator=(const BlockColours&) = delete;
};

// By size, on a scale from the smallest block to the largest; five steps of it in the legend.
void colour_by_size(BlockColours& colours, uint64_t smallest, uint64_t largest,
                    BlockMapSpec& spec) {
    colours.what = "size";
    if (largest < smallest) smallest = largest = 1;
    for (unsigned step = 0; step < 5; ++step) {
        const double t = step / 4.0;
        const auto size = static_cast<uint64_t>(
            std::exp2(std::log2(static_cast<double>(std::max<uint64_t>(smallest, 1))) * (1 - t) +
                      std::log2(static_cast<double>(std::max<uint64_t>(largest, 1))) * t));
        spec.legend.push_back({size_colour(size, smallest, largest), bytes_text(size)});
    }
    colours.colour = [smallest, largest](const BlockLife& life) {
        return rgb8(size_colour(life.size, smallest, largest));
    };
}

// By thread, or by site when the sites can be named (else by thread, the note says why):
// a palette colour for each top slot, grey for the rest, each named in the legend.
void colour_by_slot(BlockColours& colours, BlockColouring colouring, const Recording& recording,
                    const EventScan& scan, BlockMapSpec& spec) {
    std::string note;
    if (colouring == BlockColouring::thread)
        colours.slots = EventSlots::by_thread(scan.thread_bytes, recording.reader.threads());
    else
        colours.slots = recording.slots(scan, note);
    spec.note = note;
    const EventSlots& slots = *colours.slots;
    colours.what = slots.by_site() ? "site" : "thread";
    for (unsigned s = 0; s < slots.count(); ++s) {
        const Colour c = s == slots.rest() ? kRestGrey : palette_colour(s);
        colours.slot_colours.push_back(rgb8(c));
        spec.legend.push_back({c, s == slots.rest() ? slots.rest_label() : slots.labels()[s]});
    }
    colours.colour = [&colours](const BlockLife& life) {
        return colours.slot_colours[colours.slots->slot_of(life.site, life.thread)];
    };
}

}  // namespace

Status draw_flame_graph(const std::string& sites_path, const std::string& out_path,
                        FlameMetric metric, const PictureOptions& options) {
    FlamePlotSpec spec;
    if (Status status = checked_size(options, spec.width, spec.height); !status.ok()) return status;
    SitesProfile profile;
    if (Status status = read_sites_file(sites_path, profile); !status.ok()) return status;
    Symbolizer symbolizer(profile.modules);
    const SiteNames names(profile, symbolizer);
    const FlameNode root = build_flame_tree(names, metric);
    for (const std::string& note : symbolizer.notes()) warn(options, note);
    if (profile.ended_by_crash)
        warn(options,
             sites_path +
                 ": the program died of a fatal signal: the figures are those of that moment");

    std::string what = metric_words(metric);
    what[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(what[0])));
    spec.title =
        with_valid_utf8(!options.title.empty() ? options.title
                                               : what + " by call stack: " + run_name(profile) +
                                                     ", " + bytes_text(root.value) + " in all");
    spec.empty_message = std::string("no ") + metric_words(metric) + ": nothing to draw";

    PictureOutput output;
    if (Status status = output.open(out_path, spec.width, spec.height, spec.title); !status.ok())
        return status;
    plot_flame_graph(output.context(), spec, root);
    if (const std::string warning = output.lettering_warning(); !warning.empty())
        warn(options, warning);
    return output.finish(png_texts(spec.title, sites_path));
}

Status draw_heap_by_site(const std::string& events_path, const std::string& sites_path,
                         const std::string& out_path, const PictureOptions& options) {
    StackedPlotSpec spec;
    if (Status status = checked_size(options, spec.width, spec.height); !status.ok()) return status;
    const PlotFrame frame = stacked_frame(spec.width, spec.height);
    if (frame.width() < 20 || frame.height() < 20)
        return Failure{"picture size " + std::to_string(spec.width) + "x" +
                       std::to_string(spec.height) + " too small for the heap by site"};
    Recording recording;
    if (Status status = recording.open(events_path, sites_path, options); !status.ok())
        return status;
    // A whole recording with sites says in its trailer all the first pass would find.
    EventScan scan;
    const EventsReader& reader = recording.reader;
    if (recording.names && reader.has_sites() && reader.complete()) {
        scan.events = reader.trailer_event_count();
        scan.start_time = reader.start_time();
        scan.end_time = reader.end_time();
        scan.any_site = true;
    } else {
        scan = scan_events(recording.reader);
    }
    if (options.time_based && scan.end_time <= scan.start_time)
        warn(options, events_path + ": the recording spans no time; drawing by calls instead");
    const EventSlots slots = recording.slots(scan, spec.note);
    const EventPlacement placement(scan, options.time_based);
    const StackedSeries series = build_stacked(recording.reader, placement, slots,
                                               static_cast<unsigned>(std::max(1.0, frame.width())));
    recording.report_damage(events_path, options);
    spec.axis = recording.axis(scan, placement);
    spec.title = with_valid_utf8(
        !options.title.empty()
            ? options.title
            : std::string("Heap by ") + (slots.by_site() ? "allocation site" : "thread") +
                  " over " + (placement.time_based() ? "time" : "calls") + ": " + recording.run() +
                  ", highest " + bytes_text(series.top));
    if (scan.events == 0) spec.note = "the recording holds no events";

    PictureOutput output;
    if (Status status = output.open(out_path, spec.width, spec.height, spec.title); !status.ok())
        return status;
    plot_heap_by_site(output.context(), spec, series, slots);
    if (const std::string warning = output.lettering_warning(); !warning.empty())
        warn(options, warning);
    return output.finish(png_texts(spec.title, events_path));
}

Status draw_block_map(const std::string& events_path, const std::string& sites_path,
                      const std::string& out_path, BlockColouring colouring,
                      const PictureOptions& options) {
    BlockMapSpec spec;
    if (Status status = checked_block_map_size(options, spec); !status.ok()) return status;
    const PlotFrame frame = block_map_frame(spec.width, spec.height);
    Recording recording;
    if (Status status = recording.open(events_path, sites_path, options); !status.ok())
        return status;
    AddressFolding folding;
    uint64_t smallest = UINT64_MAX, largest = 0;
    const EventScan scan = scan_events(recording.reader, [&](const RecordedEvent& event) {
        if (event.kind == RecordedEvent::Kind::release) return;
        folding.add(event.address, event.size);
        smallest = std::min(smallest, event.size);
        largest = std::max(largest, event.size);
    });
    recording.report_damage(events_path, options);
    if (options.time_based && scan.end_time <= scan.start_time)
        warn(options, events_path + ": the recording spans no time; drawing by calls instead");
    folding.lay_out(frame.height(), kFoldRows);
    const EventPlacement placement(scan, options.time_based);

    BlockColours colours;
    if (colouring == BlockColouring::size)
        colour_by_size(colours, smallest, largest, spec);
    else
        colour_by_slot(colours, colouring, recording, scan, spec);

    CoverageBuffer buffer(static_cast<unsigned>(frame.width()),
                          static_cast<unsigned>(frame.height()));
    BlockPainting painting{folding, placement, buffer, colours.colour};
    const BlockReplay::Ended ended = [&](const BlockLife& life) { painting(life); };
    BlockReplay replay;
    // The map places blocks by their events' positions, which a described block's record
    // cannot say of its start: every block through the table.
    recording.reader.read_descriptions(false);
    recording.reader.rewind();
    RecordedEvent event;
    uint64_t index = 0;
    while (recording.reader.next(event)) {
        event.time = placement.position(index++, event.time);
        replay.add(event, ended);
    }
    replay.finish(recording.reader, placement.span(), ended);
    buffer.finish();

    spec.blocks = painting.blocks;
    spec.axis = recording.axis(scan, placement);
    spec.title = with_valid_utf8(!options.title.empty()
                                     ? options.title
                                     : "Blocks by address over " +
                                           std::string(placement.time_based() ? "time" : "calls") +
                                           ", by " + colours.what + ": " + recording.run());
    if (scan.events == 0) spec.note = "the recording holds no events";
    PictureOutput output;
    if (Status status = output.open(out_path, spec.width, spec.height, spec.title); !status.ok())
        return status;
    plot_block_map(output.context(), spec, buffer, folding);
    if (const std::string warning = output.lettering_warning(); !warning.empty())
        warn(options, warning);
    return output.finish(png_texts(spec.title, events_path));
}

}  // namespace memusagestat
