// SPDX-License-Identifier: MIT
// Builds the envelope of a mapped data file: one pass, split between threads.
#pragma once

#include "graph/envelope.h"
#include "read/mapped_data_file.h"

namespace memusagestat {

struct Placement {
    bool time_based = false;
    unsigned columns = 1;
    bool with_total = true;
    uint64_t start_time = 0;  // time placement only
    uint64_t end_time = 0;
};

// Each of `parts` threads reads its own contiguous part of the file once, through its
// own mapping; the parts' series are merged in file order, so the result is the same
// as one thread's.
EnvelopeSeries build_envelope(const MappedDataFile& file, const Placement& placement,
                              unsigned parts);

// How many parts a file of `events` events is worth splitting into: one per hardware
// thread, but no part under a million events, where a thread costs more than it saves.
unsigned envelope_parts(uint64_t events);

}  // namespace memusagestat
