// SPDX-License-Identifier: MIT
#include "read/block_replay.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace memusagestat {
namespace {

constexpr size_t kInitialSlots = size_t{1} << 10;
constexpr unsigned kStampTimeShift = 16;
constexpr uint64_t kStampTimes = uint64_t{1} << (64 - kStampTimeShift);
// The first block's time less this is what stamps count from, so that a time a little
// earlier (threads' chunks interleave out of order) still fits.
constexpr uint64_t kEarlier = uint64_t{1} << 44;

}  // namespace

BlockReplay::BlockReplay() { allocate_index(kInitialSlots); }
BlockReplay::~BlockReplay() { release_index(); }

// Anonymous pages: zero (every slot empty) without being written.
void BlockReplay::allocate_index(size_t capacity) {
    void* pages = ::mmap(nullptr, capacity * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) throw std::bad_alloc();
    index_ = static_cast<uint32_t*>(pages);
    capacity_ = capacity;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
}

void BlockReplay::release_index() {
    if (index_ != nullptr) ::munmap(index_, capacity_ * sizeof(uint32_t));
    index_ = nullptr;
}

size_t BlockReplay::memory_bytes() const {
    return capacity_ * sizeof(uint32_t) +
           chunks_.size() * (size_t{1} << kChunkBits) * sizeof(Entry) + far_.memory_bytes() +
           described_.memory_bytes();
}

void BlockReplay::prefetch_cluster(uint64_t address) const {
    // A cluster is short at the table's fill: past a few slots, the rest is left to chance.
    constexpr int kMostSlots = 4;
    const size_t mask = capacity_ - 1;
    size_t i = home(address);
    for (int n = 0; n < kMostSlots && index_[i] != 0; ++n, i = (i + 1) & mask) {
        const Entry& named = entry(index_[i] - 1);
        __builtin_prefetch(&named.address, 1);
        __builtin_prefetch(&named.stamp, 1);  // the entry may straddle two cache lines
    }
}

uint32_t* BlockReplay::find(uint64_t address) {
    const size_t mask = capacity_ - 1;
    for (size_t i = home(address);; i = (i + 1) & mask) {
        if (index_[i] == 0) return nullptr;
        if (entry(index_[i] - 1).address == address) return &index_[i];
    }
}

std::pair<uint32_t, bool> BlockReplay::insert(uint64_t address) {
    if ((size_ + 1) * 4 > capacity_ * 3) grow();
    const size_t mask = capacity_ - 1;
    for (size_t i = home(address);; i = (i + 1) & mask) {
        if (index_[i] != 0) {
            if (entry(index_[i] - 1).address == address) return {index_[i] - 1, false};
            continue;
        }
        uint32_t made = free_;
        if (made != kNone) {
            free_ = entry(made).site;
        } else {
            if (used_ == kNone - 1) throw std::bad_alloc();
            made = used_++;
            if ((made >> kChunkBits) >= chunks_.size())
                chunks_.emplace_back(new Entry[size_t{1} << kChunkBits]);
        }
        entry(made).address = address;
        index_[i] = made + 1;
        ++size_;
        return {made, true};
    }
}

void BlockReplay::erase(uint32_t* slot) {
    const uint32_t gone = *slot - 1;
    entry(gone).stamp = kFreeStamp;
    entry(gone).site = free_;
    free_ = gone;
    --size_;
    const size_t mask = capacity_ - 1;
    size_t hole = static_cast<size_t>(slot - index_);
    // Entries after the hole that would no longer be found move back into it.
    for (size_t i = (hole + 1) & mask;; i = (i + 1) & mask) {
        if (index_[i] == 0) break;
        const size_t want = home(entry(index_[i] - 1).address);
        if (((i - want) & mask) >= ((i - hole) & mask)) {
            index_[hole] = index_[i];
            hole = i;
        }
    }
    index_[hole] = 0;
}

void BlockReplay::grow() {
    uint32_t* const old = index_;
    const size_t old_capacity = capacity_;
    allocate_index(old_capacity * 2);
    const size_t mask = capacity_ - 1;
    for (size_t j = 0; j < old_capacity; ++j) {
        if (old[j] == 0) continue;
        size_t i = home(entry(old[j] - 1).address);
        while (index_[i] != 0) i = (i + 1) & mask;
        index_[i] = old[j];
    }
    ::munmap(old, old_capacity * sizeof(uint32_t));
}

void BlockReplay::store(Entry& entry, const Whole& whole) {
    if (!based_) {
        based_ = true;
        base_ = whole.start > kEarlier ? whole.start - kEarlier : 0;
    }
    const uint64_t since = whole.start - base_;  // wraps should the time be before base_
    const bool fits = whole.size < kNone && whole.thread < kFarThread &&
                      whole.born == whole.start && whole.start >= base_ && since < kStampTimes;
    entry.site = whole.site;
    if (fits) {
        entry.size = static_cast<uint32_t>(whole.size);
        entry.stamp = since << kStampTimeShift | whole.thread;
    } else {
        entry.size = 0;
        entry.stamp = kFarThread;
        *far_.insert(entry.address).first = whole;
    }
}

BlockReplay::Whole BlockReplay::load(const Entry& entry) {
    if ((entry.stamp & kFarThread) == kFarThread) return *far_.find(entry.address);
    const uint64_t start = base_ + (entry.stamp >> kStampTimeShift);
    return Whole{entry.size, entry.site, static_cast<uint32_t>(entry.stamp & kFarThread), start,
                 start};
}

uint64_t BlockReplay::start_of(const Entry& entry) {
    if ((entry.stamp & kFarThread) == kFarThread) return far_.find(entry.address)->start;
    return base_ + (entry.stamp >> kStampTimeShift);
}

BlockLife BlockReplay::end_life(const Entry& entry, uint64_t when, bool freed, bool resized) {
    const Whole whole = load(entry);
    if ((entry.stamp & kFarThread) == kFarThread) far_.erase(far_.find(entry.address));
    heap_ -= static_cast<int64_t>(whole.size);
    return BlockLife{entry.address, whole.size, whole.site, whole.thread, whole.born,
                     whole.start,   when,       freed,      resized};
}

// A described block's event: its bit, and the life its record says, without the table. An
// allocate at an address the table holds ends that block there, as the table's own would.
int BlockReplay::step_described(const RecordedEvent& event, BlockLife (&ended)[2]) {
    int count = 0;
    const bool ends = event.kind != RecordedEvent::Kind::allocate;
    const uint64_t ended_at =
        event.kind == RecordedEvent::Kind::resize ? event.old_address : event.address;
    if (ends && !described_.clear(ended_at)) {
        ++unknown_blocks_;
    } else if (ends) {
        --described_alive_;
        described_starts_.ended(event.start);
        heap_ -= static_cast<int64_t>(event.old_size);
        const bool resized = event.kind == RecordedEvent::Kind::resize;
        ended[count++] = BlockLife{ended_at,    event.old_size, event.site, event.owner, event.born,
                                   event.start, event.time,     true,       resized};
    }
    if (!makes_described(event)) return count;
    if (size_ != 0) {
        if (uint32_t* slot = find(event.address); slot != nullptr) {
            ++unknown_blocks_;
            ended[count++] = end_life(entry(*slot - 1), event.time, true, false);
            erase(slot);
        }
    }
    // Made twice without a free between: the recording missed it, and its life with it.
    if (!described_.set(event.address)) {
        ++unknown_blocks_;
    } else {
        ++described_alive_;
    }
    // Counted either way: the bit set stands for this creation now, whose end will come.
    described_starts_.made(event.time);
    ++described_made_;
    heap_ += static_cast<int64_t>(event.size);
    return count;
}

int BlockReplay::step(const RecordedEvent& event, BlockLife (&ended)[2]) {
    if (event.described) return step_described(event, ended);
    int count = 0;
    switch (event.kind) {
        case RecordedEvent::Kind::allocate: {
            // An address handed out twice without a free between: the recording missed the
            // free (it cannot happen in a whole file), so the first block ends here.
            auto [made, inserted] = insert(event.address);
            Entry& alive = entry(made);
            if (!inserted) {
                ++unknown_blocks_;
                ended[count++] = end_life(alive, event.time, true, false);
            }
            store(alive, Whole{event.size, event.site, event.thread, event.time, event.time});
            heap_ += static_cast<int64_t>(event.size);
            return count;
        }
        case RecordedEvent::Kind::release: {
            uint32_t* slot = find(event.address);
            if (slot == nullptr) {
                ++unknown_blocks_;
                return count;
            }
            ended[count++] = end_life(entry(*slot - 1), event.time, true, false);
            erase(slot);
            return count;
        }
        case RecordedEvent::Kind::resize: {
            Whole next{event.size, 0, event.thread, event.time, event.time};
            uint32_t* old = find(event.old_address);
            if (old == nullptr) {
                // A recording of sampled blocks only: a block outside the sample that a
                // realloc let in is seen first here, with its site.
                next.site = event.site;
                if (event.site == 0) ++unknown_blocks_;
            } else {
                const Entry& before = entry(*old - 1);
                const Whole whole = load(before);
                next.site = whole.site;
                next.thread = whole.thread;
                next.born = whole.born;
                ended[count++] = end_life(before, event.time, true, true);
                erase(old);
            }
            auto [made, inserted] = insert(event.address);
            Entry& moved_to = entry(made);
            if (!inserted) {
                ++unknown_blocks_;
                ended[count++] = end_life(moved_to, event.time, true, false);
            }
            store(moved_to, next);
            heap_ += static_cast<int64_t>(event.size);
            return count;
        }
    }
    return count;
}

// A described block's life is in the record that ends it; for those never ended, the record
// that made one is the latest making one at its address, its bit still set: read backwards,
// chunk by chunk, each creation whose bit is set is a block alive at the end (its bit then
// cleared). The creations the reader gave beyond those replayed (ReplayFeed reads ahead) were
// never replayed: the latest that many are passed over. A chunk whose times hold no live
// block's creation (LiveStarts) is not read at all.
void BlockReplay::finish_described(EventsReader& reader, uint64_t end_time, const Ended& ended) {
    uint64_t beyond =
        reader.described_made() > described_made_ ? reader.described_made() - described_made_ : 0;
    std::vector<RecordedEvent> chunk;
    for (size_t index = reader.chunks_seen(); index-- > 0 && described_alive_ > 0;) {
        uint64_t first = 0, last = 0;
        if (beyond == 0 && reader.chunk_times(index, first, last) &&
            !described_starts_.any_between(first, last))
            continue;
        reader.read_chunk(index, chunk, makes_described);
        for (auto event = chunk.rbegin(); event != chunk.rend() && described_alive_ > 0; ++event) {
            if (!makes_described(*event)) continue;
            if (beyond > 0) {
                --beyond;
                continue;
            }
            if (!described_.clear(event->address)) continue;
            --described_alive_;
            described_starts_.ended(event->time);
            heap_ -= static_cast<int64_t>(event->size);
            const bool resized = event->kind == RecordedEvent::Kind::resize;
            const uint64_t start = event->time;
            ended(BlockLife{event->address, event->size, event->site,
                            resized ? event->owner : event->thread, resized ? event->born : start,
                            start, end_time > start ? end_time : start, false, false});
        }
    }
    described_.reset();
    described_starts_.reset();
    described_alive_ = 0;
    described_made_ = 0;
}

void BlockReplay::finish(EventsReader& reader, uint64_t end_time, const Ended& ended) {
    std::vector<uint32_t> left;
    left.reserve(size_);
    for (size_t i = 0; i < capacity_; ++i)
        if (index_[i] != 0) left.push_back(index_[i] - 1);
    release_index();
    std::sort(left.begin(), left.end(), [&](uint32_t a, uint32_t b) {
        const uint64_t start_a = start_of(entry(a)), start_b = start_of(entry(b));
        return start_a != start_b ? start_a < start_b : entry(a).address < entry(b).address;
    });
    for (uint32_t index : left) {
        const Entry& alive = entry(index);
        const Whole whole = load(alive);
        heap_ -= static_cast<int64_t>(whole.size);
        const uint64_t end = end_time > whole.start ? end_time : whole.start;
        ended(BlockLife{alive.address, whole.size, whole.site, whole.thread, whole.born,
                        whole.start, end, false, false});
    }
    left = {};
    chunks_.clear();
    chunks_.shrink_to_fit();
    used_ = 0;
    free_ = kNone;
    size_ = 0;
    based_ = false;
    far_.drain([](uint64_t, const Whole&) {});
    allocate_index(kInitialSlots);
    finish_described(reader, end_time, ended);
}

}  // namespace memusagestat
