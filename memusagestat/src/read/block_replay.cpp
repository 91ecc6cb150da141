#include "read/block_replay.h"

#include <algorithm>
#include <vector>

namespace memusagestat {

void BlockReplay::store(uint64_t address, Alive& alive, const Whole& whole) {
    const uint64_t back = whole.start - whole.born;  // wraps should a damaged file go back
    alive = Alive{whole.start, whole.size >= kFar ? kFar : static_cast<uint32_t>(whole.size),
                  whole.site, whole.thread, back >= kFar ? kFar : static_cast<uint32_t>(back)};
    if (alive.size == kFar || alive.born_back == kFar) far_[address] = Far{whole.size, whole.born};
}

BlockReplay::Whole BlockReplay::load(uint64_t address, const Alive& alive) const {
    Whole whole{alive.size, alive.site, alive.thread, alive.start - alive.born_back, alive.start};
    if (alive.size == kFar || alive.born_back == kFar) {
        const Far& far = far_.at(address);
        whole.size = far.size;
        whole.born = far.born;
    }
    return whole;
}

void BlockReplay::forget(uint64_t address, const Alive& alive) {
    if (alive.size == kFar || alive.born_back == kFar) far_.erase(address);
}

void BlockReplay::end_life(uint64_t address, const Alive& alive, uint64_t when, bool resized,
                           const Ended& ended) {
    const Whole whole = load(address, alive);
    forget(address, alive);
    heap_ -= static_cast<int64_t>(whole.size);
    ended(BlockLife{address, whole.size, whole.site, whole.thread, whole.born, whole.start, when,
                    true, resized});
}

void BlockReplay::add(const RecordedEvent& event, const Ended& ended) {
    switch (event.kind) {
        case RecordedEvent::Kind::allocate: {
            // An address handed out twice without a free between: the recording missed the
            // free (it cannot happen in a whole file), so the first block ends here.
            auto [alive, inserted] = alive_.insert(event.address);
            if (!inserted) {
                ++unknown_blocks_;
                end_life(event.address, *alive, event.time, false, ended);
            }
            store(event.address, *alive,
                  Whole{event.size, event.site, event.thread, event.time, event.time});
            heap_ += static_cast<int64_t>(event.size);
            return;
        }
        case RecordedEvent::Kind::release: {
            Alive* alive = alive_.find(event.address);
            if (alive == nullptr) {
                ++unknown_blocks_;
                return;
            }
            end_life(event.address, *alive, event.time, false, ended);
            alive_.erase(alive);
            return;
        }
        case RecordedEvent::Kind::resize: {
            Whole next{event.size, 0, event.thread, event.time, event.time};
            Alive* old = alive_.find(event.old_address);
            if (old == nullptr) {
                // A recording of sampled blocks only: a block outside the sample that a
                // realloc let in is seen first here, with its site.
                next.site = event.site;
                if (event.site == 0) ++unknown_blocks_;
            } else {
                const Whole before = load(event.old_address, *old);
                next.site = before.site;
                next.thread = before.thread;
                next.born = before.born;
                end_life(event.old_address, *old, event.time, true, ended);
                alive_.erase(old);
            }
            auto [moved_to, inserted] = alive_.insert(event.address);
            if (!inserted) {
                ++unknown_blocks_;
                end_life(event.address, *moved_to, event.time, false, ended);
            }
            store(event.address, *moved_to, next);
            heap_ += static_cast<int64_t>(event.size);
            return;
        }
    }
}

void BlockReplay::finish(uint64_t end_time, const Ended& ended) {
    std::vector<std::pair<uint64_t, Alive>> left;
    left.reserve(alive_.size());
    alive_.drain([&](uint64_t address, const Alive& alive) { left.emplace_back(address, alive); });
    std::sort(left.begin(), left.end(), [](const auto& a, const auto& b) {
        return a.second.start != b.second.start ? a.second.start < b.second.start
                                                : a.first < b.first;
    });
    for (const auto& [address, alive] : left) {
        const Whole whole = load(address, alive);
        heap_ -= static_cast<int64_t>(whole.size);
        uint64_t end = end_time > whole.start ? end_time : whole.start;
        ended(BlockLife{address, whole.size, whole.site, whole.thread, whole.born, whole.start, end,
                        false, false});
    }
    far_.clear();
}

}  // namespace memusagestat
