// SPDX-License-Identifier: MIT
#include "sites/site_replay.h"

#include <memusage/wide_arithmetic.h>

#include <unordered_set>

#include "read/block_replay.h"
#include "read/events_reader.h"
#include "read/replay_feed.h"
#include "sites/definitions.h"
#include "sites/site_id_table.h"

namespace memusagestat {

using memusage::Failure;
using memusage::Status;

namespace {

constexpr size_t kNoSite = SIZE_MAX;

// Each raw site id's shown site, and whether the runtime keeps its blocks (ShownSite's ids
// and kept_ids), looked up for every event.
struct SiteOfId {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t shown = kNone;
    bool kept_by_runtime = false;
};

SiteIdTable<SiteOfId> sites_of_ids(const std::vector<ShownSite>& sites) {
    size_t ids = 0;
    for (const ShownSite& site : sites) ids += site.ids.size() + site.kept_ids.size();
    SiteIdTable<SiteOfId> table(ids, SiteOfId{});
    for (size_t i = 0; i < sites.size(); ++i) {
        for (uint32_t id : sites[i].ids) {
            SiteOfId& of = table.at(id);
            if (of.shown == SiteOfId::kNone) of.shown = static_cast<uint32_t>(i);  // the first
        }
    }
    for (const ShownSite& site : sites)
        for (uint32_t id : site.kept_ids) table.at(id).kept_by_runtime = true;
    return table;
}

// The bytes and blocks each shown site holds as the events go by.
class SiteHoldings {
  public:
    SiteHoldings(size_t site_count, const SiteIdTable<SiteOfId>& of_id)
        : of_id_(of_id), held_(site_count) {}

    size_t shown_of(uint32_t id) const {
        const uint32_t shown = of_id_[id].shown;
        return shown == SiteOfId::kNone ? kNoSite : shown;
    }

    // One event through the replay, the holdings kept in step; returns the shown site whose
    // holdings grew, or kNoSite.
    template <typename OnEnded>
    size_t add(BlockReplay& replay, const RecordedEvent& event, OnEnded&& on_ended) {
        size_t resized_site = kNoSite;
        bool resized = false;
        replay.add(event, [&](const BlockLife& life) {
            size_t site = shown_of(life.site);
            if (site != kNoSite) {
                held_[site].bytes -= life.size;
                --held_[site].blocks;
            }
            if (life.resized_away) {
                resized = true;
                resized_site = site;
            }
            on_ended(life, site);
        });
        size_t grown = kNoSite;
        if (event.kind == RecordedEvent::Kind::allocate) grown = shown_of(event.site);
        if (event.kind == RecordedEvent::Kind::resize && resized) grown = resized_site;
        if (grown != kNoSite) {
            held_[grown].bytes += event.size;
            ++held_[grown].blocks;
        }
        return grown;
    }

    uint64_t bytes(size_t site) const { return held_[site].bytes; }
    uint64_t blocks(size_t site) const { return held_[site].blocks; }

  private:
    struct Held {
        uint64_t bytes = 0, blocks = 0;
    };
    const SiteIdTable<SiteOfId>& of_id_;
    std::vector<Held> held_;  // by shown site
};

// From one cycle-counter reading to a later one; 0 should a damaged file reverse them.
double seconds_between(uint64_t from, uint64_t to, double seconds_per_cycle) {
    return to > from ? static_cast<double>(to - from) * seconds_per_cycle : 0.0;
}

// The recording at `events_path`, open, if it is of the run that wrote `profile` and has
// sites; `seconds_per_cycle`: its clock's rate.
Status open_sites_recording(EventsReader& reader, const std::string& events_path,
                            const SitesProfile& profile, double& seconds_per_cycle) {
    if (Status opened = reader.open(events_path); !opened.ok())
        return Failure{events_path + ": " + opened.error()};
    if (!reader.has_sites())
        return Failure{events_path +
                       " was recorded without allocation sites (run with --sites too)"};
    if (reader.pid() != profile.pid)
        return Failure{events_path + " is the recording of another run (process " +
                       std::to_string(reader.pid()) + "; the sites file's is " +
                       std::to_string(profile.pid) + ")"};

    // A complete recording knows its clock's rate from the start; a cut one after a pass.
    RecordedEvent event;
    seconds_per_cycle = reader.seconds_per_cycle();
    if (seconds_per_cycle <= 0) {
        while (reader.next(event)) {
        }
        seconds_per_cycle = reader.seconds_per_cycle();
        reader.rewind();
    }
    if (seconds_per_cycle <= 0)
        return Failure{events_path + ": the recording is too short to tell its clock's rate"};
    return {};
}

// Each ended block life into its shown site's lifetimes (RunLifetimes::sites), or into
// the blocks the runtime keeps. Lifetimes are summed in whole cycles and made seconds once
// (settle()): the sums do not depend on the order the lives come in (the replay gives the
// lives of blocks alive at the end in an order of its own).
class EndedBlocks {
  public:
    EndedBlocks(const SitesProfile& profile, const SiteIdTable<SiteOfId>& of_id,
                std::optional<double> long_lived, double seconds_per_cycle, RunLifetimes& lifetimes)
        : of_id_(of_id),
          long_lived_(long_lived),
          seconds_per_cycle_(seconds_per_cycle),
          lifetimes_(lifetimes),
          cycles_(lifetimes.sites.size()) {
        // The standard streams' buffers, by address: the runtime's blocks at sites that are
        // not the runtime's whole (definitions.h, kept_of_site).
        for (const SitesProfile::StreamBuffer& buffer : profile.standard_stream_buffers)
            standard_buffers_.insert(buffer.address);
    }

    void operator()(const BlockLife& life, size_t site) {
        if (site == kNoSite || life.resized_away) return;
        SiteLifetime& figures = lifetimes_.sites[site];
        const double lived = seconds(life.born, life.end);
        const uint64_t cycles = life.end > life.born ? life.end - life.born : 0;
        ++figures.blocks;
        cycles_[site].total.add(cycles);
        if (!life.freed) {
            figures.bytes_at_end += life.size;
            ++figures.blocks_at_end;
        }
        const bool is_long_lived = long_lived_ && memusagestat::long_lived(lived, *long_lived_);
        if (is_long_lived && runtime_keeps(life)) {
            ++lifetimes_.kept_long_lived_blocks;
            lifetimes_.kept_long_lived_bytes += life.size;
        } else if (is_long_lived) {
            ++figures.long_lived_blocks;
            figures.long_lived_bytes += life.size;
            figures.long_lived_freed += life.freed;
            cycles_[site].long_lived.add(cycles);
            if (lived > figures.long_lived_longest) figures.long_lived_longest = lived;
        }
    }

    // Every life ended: the summed lifetimes into seconds.
    void settle() {
        for (size_t site = 0; site < cycles_.size(); ++site) {
            lifetimes_.sites[site].total_lifetime = seconds_of(cycles_[site].total);
            lifetimes_.sites[site].long_lived_total = seconds_of(cycles_[site].long_lived);
        }
    }

  private:
    double seconds(uint64_t from, uint64_t to) const {
        return seconds_between(from, to, seconds_per_cycle_);
    }
    double seconds_of(const memusage::WideSum& cycles) const {
        return cycles.value() * seconds_per_cycle_;
    }
    bool runtime_keeps(const BlockLife& life) const {
        return of_id_[life.site].kept_by_runtime ||
               (!life.freed && standard_buffers_.contains(life.address));
    }

    const SiteIdTable<SiteOfId>& of_id_;
    std::optional<double> long_lived_;
    double seconds_per_cycle_;
    RunLifetimes& lifetimes_;
    std::unordered_set<uint64_t> standard_buffers_;
    struct Cycles {
        memusage::WideSum total, long_lived;  // a run's block lives may pass 2^64
    };
    std::vector<Cycles> cycles_;  // by shown site
};

// Every stride-th event's heap; when they fill twice the bound, every other one is
// dropped and the stride doubles, so the samples stay evenly spread in one pass. The
// n-th sample is detailed when n is a multiple of kDetailedEvery: halving keeps the
// (2n)-th as the n-th, so a detailed sample stays detailed and at most
// 2 * kHeapSamples / kDetailedEvery sites' holdings are kept at once.
class HeapSampler {
  public:
    // details: the detailed samples hold the bytes each shown site holds.
    explicit HeapSampler(bool details) : details_(details) {}

    // The `events`-th event, at `time`, with the heap and the holdings after it.
    void add(uint64_t events, uint64_t time, int64_t heap, uint64_t churned,
             const SiteHoldings& holdings, size_t site_count) {
        if (events != next_) return;
        Sample sample{time, heap > 0 ? static_cast<uint64_t>(heap) : 0, churned, {}};
        if (details_ && is_detailed(samples_.size()))
            for (size_t site = 0; site < site_count; ++site)
                if (holdings.bytes(site) > 0) sample.held.emplace_back(site, holdings.bytes(site));
        samples_.push_back(std::move(sample));
        if (samples_.size() == 2 * RunLifetimes::kHeapSamples) {
            for (size_t i = 0; i < RunLifetimes::kHeapSamples; ++i) {
                samples_[i] = std::move(samples_[2 * i + 1]);
                if (!is_detailed(i)) samples_[i].held = {};
            }
            samples_.resize(RunLifetimes::kHeapSamples);
            stride_ *= 2;
        }
        next_ = (events / stride_ + 1) * stride_;  // the next multiple of the stride
    }

    // The samples into `lifetimes`, their times in seconds from `start`.
    void take(uint64_t start, double seconds_per_cycle, RunLifetimes& lifetimes) {
        for (size_t i = 0; i < samples_.size(); ++i)
            lifetimes.heap_samples.push_back(
                {seconds_between(start, samples_[i].time, seconds_per_cycle), samples_[i].heap,
                 details_ && is_detailed(i), std::move(samples_[i].held), samples_[i].churned});
    }

  private:
    struct Sample {
        uint64_t time = 0, heap = 0, churned = 0;
        std::vector<std::pair<size_t, uint64_t>> held;
    };
    static bool is_detailed(size_t index) {
        return (index + 1) % RunLifetimes::kDetailedEvery == 0;
    }

    bool details_;
    uint64_t stride_ = 1;
    uint64_t next_ = 1;  // the event the next sample is taken after
    std::vector<Sample> samples_;
};

// Again from the start, up to the event that first took the heap to its peak: each shown
// site's bytes and blocks there.
void count_at_peak(EventsReader& reader, const SiteIdTable<SiteOfId>& of_id, uint64_t peak_event,
                   RunLifetimes& lifetimes) {
    RecordedEvent event;
    reader.rewind();
    SiteHoldings at(lifetimes.sites.size(), of_id);
    BlockReplay again;
    ReplayFeed feed(reader, again);
    for (uint64_t n = 0; n < peak_event && feed.next(event); ++n)
        at.add(again, event, [](const BlockLife&, size_t) {});
    for (size_t site = 0; site < lifetimes.sites.size(); ++site) {
        lifetimes.sites[site].bytes_at_peak = at.bytes(site);
        lifetimes.sites[site].blocks_at_peak = at.blocks(site);
    }
}

}  // namespace

Status replay_sites(const std::string& events_path, const SitesProfile& profile,
                    const std::vector<ShownSite>& sites, std::optional<double> long_lived,
                    bool at_peak, RunLifetimes& lifetimes) {
    lifetimes = RunLifetimes{};
    EventsReader reader;
    double seconds_per_cycle = 0;
    if (Status opened = open_sites_recording(reader, events_path, profile, seconds_per_cycle);
        !opened.ok())
        return opened;
    const auto seconds = [&](uint64_t from, uint64_t to) {
        return seconds_between(from, to, seconds_per_cycle);
    };

    lifetimes.sites.resize(sites.size());
    const SiteIdTable<SiteOfId> of_id = sites_of_ids(sites);
    SiteHoldings holdings(sites.size(), of_id);
    EndedBlocks on_ended(profile, of_id, long_lived, seconds_per_cycle, lifetimes);
    BlockReplay replay;
    ReplayFeed feed(reader, replay);
    RecordedEvent event;
    uint64_t events = 0, peak_event = 0, peak_time = reader.start_time();
    // Sampled sites: the recording holds the sampled blocks only, without their weights.
    const bool details = at_peak && profile.sample_interval == 0;
    HeapSampler samples(details);
    // Massif's time in bytes: what the heap took in and gave back so far.
    uint64_t churned = 0, peak_churned = 0;
    while (feed.next(event)) {
        int64_t heap_before = replay.heap();
        size_t grown = holdings.add(replay, event, on_ended);
        churned += static_cast<uint64_t>(replay.heap() > heap_before ? replay.heap() - heap_before
                                                                     : heap_before - replay.heap());
        ++events;
        samples.add(events, event.time, replay.heap(), churned, holdings, sites.size());
        if (grown != kNoSite && holdings.bytes(grown) > lifetimes.sites[grown].max_bytes) {
            lifetimes.sites[grown].max_bytes = holdings.bytes(grown);
            lifetimes.sites[grown].max_blocks = holdings.blocks(grown);
        }
        if (replay.heap() > 0 && static_cast<uint64_t>(replay.heap()) > lifetimes.heap_peak) {
            lifetimes.heap_peak = static_cast<uint64_t>(replay.heap());
            peak_event = events;
            peak_time = event.time;
            peak_churned = churned;
        }
    }
    lifetimes.problem = reader.problem();
    if (lifetimes.problem.empty() && !reader.complete())
        lifetimes.problem =
            "the recording is incomplete (the run was killed): it ends at the "
            "last events it wrote out";
    const uint64_t end = reader.end_time();
    replay.finish(reader, end,
                  [&](const BlockLife& life) { on_ended(life, holdings.shown_of(life.site)); });
    on_ended.settle();
    lifetimes.duration = seconds(reader.start_time(), end);
    lifetimes.peak_time = seconds(reader.start_time(), peak_time);
    lifetimes.peak_bytes_churned = peak_churned;
    lifetimes.bytes_churned = churned;
    // Sampled sites: the recording holds the sampled blocks only, so its heap between is the
    // sample's, not the run's; the massif file keeps to its start, peak and end.
    if (profile.sample_interval == 0)
        samples.take(reader.start_time(), seconds_per_cycle, lifetimes);

    if (at_peak && peak_event > 0) count_at_peak(reader, of_id, peak_event, lifetimes);
    return {};
}

}  // namespace memusagestat
