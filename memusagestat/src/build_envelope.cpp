#include "build_envelope.h"

namespace memusagestat {

EnvelopeSeries build_envelope(const Profile& profile, const Placement& placement) {
    EnvelopeSeries series = placement.time_based
                                ? EnvelopeSeries::by_time(placement.columns, placement.start_time,
                                                          placement.end_time, placement.with_total)
                                : EnvelopeSeries::by_call(placement.columns, profile.events.size(),
                                                          placement.with_total);
    MappedDataFile::for_each_chunk(
        profile.events, [&](std::span<const memusage::Record> chunk) { series.add(chunk); });
    return series;
}

}  // namespace memusagestat
