// SPDX-License-Identifier: MIT
#include "html/page_events.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "html/extremes_thinner.h"
#include "html/heap_buckets.h"
#include "html/thread_heaps.h"
#include "read/block_replay.h"
#include "read/replay_feed.h"
#include "sites/definitions.h"

namespace memusagestat {
namespace {

struct EventRow {
    double time;
    uint8_t kind;
    uint64_t address, size;
    uint32_t thread;
    int32_t site;
    int64_t heap;
};

struct BlockRow {
    uint64_t address, size;
    double born, died;  // died: -1 never freed
    uint32_t thread;
    int32_t site;
    double area;          // size times lifetime: how much of the block map it covers
    double lived_before;  // seconds from the block's first allocation to `born` (resized)
    bool resized;         // its life goes on at a new address or size
    bool kept;            // a block the C or C++ runtime keeps until exit
};

// The blocks kept: all of them up to the bound, then those covering the most of the map.
// Candidates gather up to twice the bound and are then cut back to the bound's largest
// (linear on average), so a run of millions of blocks never sorts them all.
class BlockKeeper {
  public:
    explicit BlockKeeper(size_t bound) : bound_(bound) {}

    void add(const BlockRow& row) {
        ++total_;
        if (bound_ == 0 || (kept_.size() >= bound_ && row.area <= threshold_)) return;
        kept_.push_back(row);
        if (kept_.size() >= 2 * bound_) cut_to_bound();
    }
    uint64_t total() const { return total_; }
    std::vector<BlockRow> take() {
        cut_to_bound();
        // Whole orders, ties and all: the replay gives the lives of the blocks alive at the
        // end in an order of its own (block_replay.h).
        std::sort(kept_.begin(), kept_.end(), [](const BlockRow& a, const BlockRow& b) {
            return std::tie(a.born, a.address, a.died) < std::tie(b.born, b.address, b.died);
        });
        return std::move(kept_);
    }

  private:
    void cut_to_bound() {
        if (kept_.size() <= bound_) return;
        const auto nth = kept_.begin() + static_cast<ptrdiff_t>(bound_ - 1);
        std::nth_element(kept_.begin(), nth, kept_.end(), [](const BlockRow& a, const BlockRow& b) {
            return a.area != b.area ? a.area > b.area
                                    : std::tie(a.born, a.address) < std::tie(b.born, b.address);
        });
        threshold_ = nth->area;
        kept_.resize(bound_);
    }

    size_t bound_;
    uint64_t total_ = 0;
    double threshold_ = 0;  // once full: a block must cover more than this to be kept
    std::vector<BlockRow> kept_;
};

template <class Row, class Column>
nlohmann::json column(const std::vector<Row>& rows, Column value) {
    nlohmann::json out = nlohmann::json::array();
    out.get_ref<nlohmann::json::array_t&>().reserve(rows.size());
    for (const Row& row : rows) out.push_back(value(row));
    return out;
}

int32_t report_site_of(const ReportEventsInput& input, uint32_t id) {
    return input.site_of && id != 0 ? input.site_of(id) : -1;
}

double run_end(const EventsReader& reader, const RunClock& clock) {
    return std::max(clock.seconds(clock.end), clock.seconds(reader.end_time()));
}

// The first pass over the recording: each event with the heap after it and its site (the
// thinner keeps them), each block life, the threads' heaps and the buckets' figures.
struct EventsPass {
    EventsPass(const EventsReader& reader, const ReportEventsInput& input)
        : input(input),
          clock(input.clock),
          thinner(input.expected_events, input.bounds.events, events),
          blocks(input.bounds.blocks),
          thread_heaps(clock.seconds(reader.end_time())),
          buckets(input.window ? input.window->start : 0.0,
                  input.window && input.window->end ? *input.window->end : run_end(reader, clock)) {
    }

    int32_t site_of(uint32_t id) const { return report_site_of(input, id); }

    // `ended`: clock.seconds(life.end), which the caller may have at hand.
    void block_ended(const BlockLife& life, double ended) {
        const double born = clock.seconds(life.start);
        if (input.window && !input.window->overlaps(born, ended)) return;
        const bool died = life.freed || life.resized_away;
        // As the rounded times are: the difference of two of them, without a float's tail.
        const double lived_before =
            life.born == life.start
                ? 0.0
                : RunClock::round_to_tenth_microsecond(born - clock.seconds(life.born));
        blocks.add({life.address, life.size, born, died ? ended : -1.0, life.thread,
                    site_of(life.site),
                    static_cast<double>(life.size) * static_cast<double>(life.end - life.start),
                    lived_before, life.resized_away,
                    input.kept_by_runtime && life.site != 0 && input.kept_by_runtime(life.site)});
    }

    void add(const RecordedEvent& event) {
        const double time = clock.seconds(event.time);  // every life it ends ends then
        uint64_t freed_size = 0, resized_from = 0;
        int32_t freed_site = -1;
        uint32_t owner = event.thread;  // a resize keeps its block's thread
        const bool temporary_free = event.kind == RecordedEvent::Kind::release &&
                                    temporary.freed(event.thread, event.address);
        replay.add(event, [&](const BlockLife& life) {
            freed_size = life.size;
            freed_site = site_of(life.site);
            owner = life.thread;
            if (life.resized_away) resized_from = life.size;
            thread_heaps.ended(life.thread, life.size, time);
            if (life.freed && !life.resized_away && temporary_free && input.temporary != nullptr &&
                freed_site >= 0)
                ++(*input.temporary)[static_cast<size_t>(freed_site)];
            block_ended(life, time);
        });
        if (event.kind == RecordedEvent::Kind::resize)
            temporary.resized(event.thread, event.old_address, event.address);
        else if (event.kind == RecordedEvent::Kind::allocate)
            temporary.allocated(event.thread, event.address);
        // What the call asked of the heap, as the text summary counts it: a resize its growth.
        const uint64_t asked =
            event.kind == RecordedEvent::Kind::allocate ? event.size
            : event.kind == RecordedEvent::Kind::resize && event.size > resized_from
                ? event.size - resized_from
                : 0;
        if (event.kind != RecordedEvent::Kind::release) {
            thread_heaps.allocated(event.thread, owner, event.size, asked, time);
        } else {
            thread_heaps.freed_by(event.thread);
        }
        buckets.add(time, static_cast<HeapBuckets::Kind>(event.kind), asked, replay.heap());
        if (input.window && !input.window->holds(time)) return;
        ++total;
        const bool freeing = event.kind == RecordedEvent::Kind::release;
        EventRow row{time,
                     static_cast<uint8_t>(event.kind),
                     event.address,
                     freeing ? freed_size : event.size,
                     event.thread,
                     event.kind == RecordedEvent::Kind::allocate ? site_of(event.site) : freed_site,
                     replay.heap()};
        thinner.add(row, {row.heap});
    }

    const ReportEventsInput& input;
    const RunClock& clock;
    std::vector<EventRow> events;
    ExtremesThinner<EventRow, 1> thinner;
    BlockKeeper blocks;
    TemporaryRule temporary;  // sites/definitions.h
    BlockReplay replay;
    ThreadHeaps thread_heaps;
    HeapBuckets buckets;
    uint64_t total = 0;
};

// The second pass: the bytes each site holds, at the moments of the buckets' peaks.
void add_site_peaks(EventsReader& reader, const ReportEventsInput& input, HeapBuckets& buckets) {
    const auto site_of = [&](uint32_t id) { return report_site_of(input, id); };
    RecordedEvent event;
    BlockReplay sites_replay;
    reader.rewind();
    ReplayFeed feed(reader, sites_replay);
    while (feed.next(event)) {
        int32_t moved_site = -1;
        sites_replay.add(event, [&](const BlockLife& life) {
            const int32_t site = site_of(life.site);
            buckets.site_changed(site, -static_cast<int64_t>(life.size));
            if (life.resized_away) moved_site = site;
        });
        if (event.kind == RecordedEvent::Kind::allocate)
            buckets.site_changed(site_of(event.site), static_cast<int64_t>(event.size));
        else if (event.kind == RecordedEvent::Kind::resize)
            buckets.site_changed(moved_site, static_cast<int64_t>(event.size));
        buckets.passed(input.clock.seconds(event.time));
    }
}

nlohmann::json events_json(const std::vector<EventRow>& events, uint64_t total, bool thinned) {
    return {{"total", total},
            {"thinned", thinned},
            {"time", column(events, [](const EventRow& r) { return r.time; })},
            {"kind", column(events, [](const EventRow& r) { return r.kind; })},
            {"address", column(events, [](const EventRow& r) { return r.address; })},
            {"size", column(events, [](const EventRow& r) { return r.size; })},
            {"thread", column(events, [](const EventRow& r) { return r.thread; })},
            {"site", column(events, [](const EventRow& r) { return r.site; })},
            {"heap", column(events, [](const EventRow& r) { return r.heap; })}};
}

nlohmann::json blocks_json(const std::vector<BlockRow>& kept, uint64_t block_total, double end) {
    return {{"total", block_total},
            {"thinned", kept.size() < block_total},
            {"address", column(kept, [](const BlockRow& r) { return r.address; })},
            {"size", column(kept, [](const BlockRow& r) { return r.size; })},
            {"born", column(kept, [](const BlockRow& r) { return r.born; })},
            {"died", column(kept, [](const BlockRow& r) { return r.died; })},
            {"thread", column(kept, [](const BlockRow& r) { return r.thread; })},
            {"site", column(kept, [](const BlockRow& r) { return r.site; })},
            // 0 as an integer: "0", not "0.0", for the many blocks never resized.
            {"lived_before", column(kept,
                                    [](const BlockRow& r) {
                                        return r.lived_before == 0 ? nlohmann::json(0)
                                                                   : nlohmann::json(r.lived_before);
                                    })},
            {"resized", column(kept, [](const BlockRow& r) { return r.resized ? 1 : 0; })},
            {"kept", column(kept, [](const BlockRow& r) { return r.kept ? 1 : 0; })},
            {"end", end}};
}

nlohmann::json threads_json(const EventsReader& reader, const ThreadHeaps& thread_heaps) {
    nlohmann::json threads = nlohmann::json::array();
    for (const ThreadInfo& thread : reader.threads()) {
        nlohmann::json described = {
            {"serial", thread.serial}, {"tid", thread.tid}, {"name", thread.name}};
        thread_heaps.describe(thread.serial, described);
        threads.push_back(std::move(described));
    }
    return threads;
}

// What the report should say of the recording itself: damaged, cut short, or missing events.
void add_recording_notes(const EventsReader& reader, const BlockReplay& replay,
                         std::vector<std::string>& notes) {
    if (!reader.problem().empty())
        notes.push_back("The event recording is damaged: " + reader.problem() +
                        "; the report holds the events before.");
    else if (!reader.complete())
        notes.push_back(
            "The event recording is incomplete (the run was killed): it ends at the last events "
            "it wrote out.");
    if (reader.dropped() != 0)
        notes.push_back("The collector could not write " + std::to_string(reader.dropped()) +
                        " events of the run.");
    if (replay.unknown_blocks() != 0)
        notes.push_back(std::to_string(replay.unknown_blocks()) +
                        " frees and resizes were of blocks the recording never showed being "
                        "allocated.");
}

}  // namespace

ReportEvents report_events(EventsReader& reader, const ReportEventsInput& input) {
    ReportEvents out;
    const RunClock& clock = input.clock;
    EventsPass pass(reader, input);
    RecordedEvent event;
    reader.rewind();
    ReplayFeed feed(reader, pass.replay);
    while (feed.next(event)) pass.add(event);
    pass.thinner.finish();
    const uint64_t end = reader.end_time();
    pass.replay.finish(reader, end, [&](const BlockLife& life) {
        pass.block_ended(life, clock.seconds(life.end));
    });

    pass.buckets.finish_counts();
    add_site_peaks(reader, input, pass.buckets);
    out.buckets = pass.buckets.json();

    const std::vector<EventRow>& events = pass.events;
    const uint64_t total = pass.total;
    out.events = events_json(events, total, pass.thinner.thinning());
    if (pass.thinner.thinning())
        out.notes.push_back(
            "The events are thinned: the report holds " + std::to_string(events.size()) + " of " +
            std::to_string(total) +
            " clickable (every extreme of the heap and a sample; the window figures count every "
            "event). " +
            (input.window_command.empty()
                 ? std::string("memusagestat --html-window=START..END writes a report of one "
                               "window with every event.")
                 : input.window_command));

    const uint64_t block_total = pass.blocks.total();
    const std::vector<BlockRow> kept = pass.blocks.take();
    out.blocks = blocks_json(kept, block_total, clock.seconds(end));
    if (kept.size() < block_total)
        out.notes.push_back("The block map is thinned: the report holds the " +
                            std::to_string(kept.size()) + " blocks of " +
                            std::to_string(block_total) +
                            " that cover the most of it (size times lifetime).");

    out.threads = threads_json(reader, pass.thread_heaps);
    add_recording_notes(reader, pass.replay, out.notes);
    return out;
}

}  // namespace memusagestat
