#include "read/block_replay.h"

#include <algorithm>
#include <vector>

namespace memusagestat {

void BlockReplay::end_life(uint64_t address, const Alive& alive, uint64_t when, bool resized,
                           const Ended& ended) {
    heap_ -= static_cast<int64_t>(alive.size);
    ended(BlockLife{address, alive.size, alive.site, alive.thread, alive.born, alive.start, when,
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
            *alive = Alive{event.size, event.site, event.thread, event.time, event.time};
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
            Alive next{event.size, 0, event.thread, event.time, event.time};
            Alive* old = alive_.find(event.old_address);
            if (old == nullptr) {
                // A recording of sampled blocks only: a block outside the sample that a
                // realloc let in is seen first here, with its site.
                next.site = event.site;
                if (event.site == 0) ++unknown_blocks_;
            } else {
                next.site = old->site;
                next.thread = old->thread;
                next.born = old->born;
                end_life(event.old_address, *old, event.time, true, ended);
                alive_.erase(old);
            }
            auto [moved_to, inserted] = alive_.insert(event.address);
            if (!inserted) {
                ++unknown_blocks_;
                end_life(event.address, *moved_to, event.time, false, ended);
            }
            *moved_to = next;
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
        heap_ -= static_cast<int64_t>(alive.size);
        uint64_t end = end_time > alive.start ? end_time : alive.start;
        ended(BlockLife{address, alive.size, alive.site, alive.thread, alive.born, alive.start, end,
                        false, false});
    }
}

}  // namespace memusagestat
