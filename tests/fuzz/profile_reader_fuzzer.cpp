// SPDX-License-Identifier: MIT
// Feeds arbitrary bytes to the reader, then through the envelope and the scale labels
// the way draw_graph does: nothing may crash, overflow or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "draw/scale_labels.h"
#include "graph/envelope.h"
#include "read/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The reader needs Record alignment, as mmap'd memory has; fuzzer input has none.
    std::vector<memusage::Record> aligned(size / sizeof(memusage::Record) + 1);
    std::memcpy(aligned.data(), data, size);
    const auto bytes = std::as_bytes(std::span(aligned)).first(size);

    memusagestat::Profile profile;
    if (!memusagestat::parse_profile(bytes, profile).ok()) return 0;
    const auto& header = profile.header;
    const unsigned columns = 1 + (size % 97);
    auto by_call = memusagestat::EnvelopeSeries::by_call(columns, profile.events.size());
    by_call.add(profile.events);
    if (header.end_time > header.start_time) {
        auto by_time =
            memusagestat::EnvelopeSeries::by_time(columns, header.start_time, header.end_time);
        by_time.add(profile.events);
    }
    for (unsigned q = 0; q <= 4; ++q) {
        const uint64_t top = std::max(header.heap_peak, by_call.max_heap());
        (void)memusagestat::scale_label(memusagestat::quarter_value(top, q), top);
    }
    return 0;
}
