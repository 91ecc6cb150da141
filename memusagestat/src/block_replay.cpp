#include "block_replay.h"

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
            auto [at, inserted] = alive_.try_emplace(event.address);
            if (!inserted) {
                ++unknown_blocks_;
                end_life(event.address, at->second, event.time, false, ended);
            }
            at->second = Alive{event.size, event.site, event.thread, event.time, event.time};
            heap_ += static_cast<int64_t>(event.size);
            return;
        }
        case RecordedEvent::Kind::release: {
            auto at = alive_.find(event.address);
            if (at == alive_.end()) {
                ++unknown_blocks_;
                return;
            }
            end_life(event.address, at->second, event.time, false, ended);
            alive_.erase(at);
            return;
        }
        case RecordedEvent::Kind::resize: {
            Alive next{event.size, 0, event.thread, event.time, event.time};
            auto at = alive_.find(event.old_address);
            if (at == alive_.end()) {
                ++unknown_blocks_;
            } else {
                next.site = at->second.site;
                next.thread = at->second.thread;
                next.born = at->second.born;
                end_life(event.old_address, at->second, event.time, true, ended);
                alive_.erase(at);
            }
            auto [moved_to, inserted] = alive_.try_emplace(event.address, next);
            if (!inserted) {
                ++unknown_blocks_;
                end_life(event.address, moved_to->second, event.time, false, ended);
                moved_to->second = next;
            }
            heap_ += static_cast<int64_t>(event.size);
            return;
        }
    }
}

void BlockReplay::finish(uint64_t end_time, const Ended& ended) {
    std::vector<std::pair<uint64_t, Alive>> left(alive_.begin(), alive_.end());
    alive_.clear();
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
