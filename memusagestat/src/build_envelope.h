// Builds the envelope of a mapped data file in one pass.
#pragma once

#include "envelope.h"
#include "mapped_data_file.h"

namespace memusagestat {

struct Placement {
    bool time_based = false;
    unsigned columns = 1;
    bool with_total = true;
    uint64_t start_time = 0;  // time placement only
    uint64_t end_time = 0;
};

// One thread on purpose: the pass is bound by memory bandwidth and page mapping, and
// splitting it between threads measured no faster.
EnvelopeSeries build_envelope(const Profile& profile, const Placement& placement);

}  // namespace memusagestat
