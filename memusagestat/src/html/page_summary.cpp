// SPDX-License-Identifier: MIT
#include "html/page_summary.h"

namespace memusagestat {
namespace {

using memusage::Call;

nlohmann::json row(const char* name, const memusage::Stats& stats, Call call) {
    return {{"name", name},
            {"calls", stats.calls_of(call)},
            {"bytes", stats.bytes_of(call)},
            {"failed", stats.failed_of(call)}};
}

}  // namespace

nlohmann::json summary_json(const memusage::Stats& stats, bool mmap_rows) {
    // The rows write_summary prints, in its order: aligned only when used, the mmap rows
    // only when traced; free has no failed column there.
    nlohmann::json rows = nlohmann::json::array();
    rows.push_back(row("malloc", stats, Call::malloc));
    rows.push_back(row("realloc", stats, Call::realloc));
    rows.push_back(row("calloc", stats, Call::calloc));
    if (stats.calls_of(Call::aligned) != 0) rows.push_back(row("aligned", stats, Call::aligned));
    nlohmann::json free_row = row("free", stats, Call::free);
    free_row["failed"] = nullptr;
    rows.push_back(std::move(free_row));
    if (mmap_rows) {
        rows.push_back(row("mmap(r)", stats, Call::mmap_r));
        rows.push_back(row("mmap(w)", stats, Call::mmap_w));
        rows.push_back(row("mmap(a)", stats, Call::mmap_a));
        rows.push_back(row("mremap", stats, Call::mremap));
        rows.push_back(row("munmap", stats, Call::munmap));
    }
    nlohmann::json histogram = nlohmann::json::array();
    for (size_t bucket = 0; bucket < memusage::kHistogramBuckets; ++bucket) {
        if (stats.histogram[bucket] == 0) continue;
        const uint64_t from = bucket * memusage::kHistogramBucketBytes;
        histogram.push_back(
            {{"from", from},
             {"to", bucket == memusage::kHistogramLarge
                        ? nlohmann::json()
                        : nlohmann::json(from + memusage::kHistogramBucketBytes - 1)},
             {"count", stats.histogram[bucket]}});
    }
    return {{"heap_total", stats.heap_total()},
            {"heap_peak", stats.heap_peak},
            {"stack_peak", stats.stack_peak},
            {"total_peak", stats.total_peak},
            {"rows", std::move(rows)},
            {"realloc",
             {{"nomove", stats.realloc_nomove},
              {"dec", stats.realloc_dec},
              {"free", stats.realloc_free}}},
            {"mremap",
             mmap_rows ? nlohmann::json{{"nomove", stats.mremap_nomove}, {"dec", stats.mremap_dec}}
                       : nlohmann::json()},
            {"histogram", std::move(histogram)},
            {"all_calls", stats.all_calls()}};
}

nlohmann::json peaks_only_summary_json(const ProfileHeader& header) {
    return {{"heap_total", nullptr},
            {"heap_peak", header.heap_peak},
            {"stack_peak", header.stack_peak},
            {"total_peak", header.total_peak},
            {"rows", nlohmann::json::array()},
            {"realloc", {{"nomove", nullptr}, {"dec", nullptr}, {"free", nullptr}}},
            {"mremap", nullptr},
            {"histogram", nlohmann::json::array()},
            {"all_calls", nullptr}};
}

}  // namespace memusagestat
