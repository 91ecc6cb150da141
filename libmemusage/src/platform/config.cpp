// SPDX-License-Identifier: MIT
#include "platform/config.h"

#include <cstdlib>
#include <cstring>

namespace memusage {

uint32_t parse_buffer_records(const char* text) {
    if (text == nullptr) return Config::kDefaultBufferRecords;
    uint64_t value = 0;
    for (const char* p = text; *p >= '0' && *p <= '9'; ++p) {
        value = value * 10 + static_cast<uint64_t>(*p - '0');
        if (value > Config::kDefaultBufferRecords) return Config::kDefaultBufferRecords;
    }
    return value == 0 ? Config::kDefaultBufferRecords : static_cast<uint32_t>(value);
}

namespace {

void reject(Config& config, const char* variable, const char* expected) {
    if (config.rejected_count < Config::kMaxRejected)
        config.rejected[config.rejected_count++] = Config::Rejected{variable, expected};
}

// MEMUSAGE_FAIL_AT, MEMUSAGE_FAIL_FROM or MEMUSAGE_FAIL_PROBABILITY, with its seed.
void read_injection(Config& config, const char* (*getenv)(const char*)) {
    const char* at = getenv("MEMUSAGE_FAIL_AT");
    const char* from = getenv("MEMUSAGE_FAIL_FROM");
    const char* probability = getenv("MEMUSAGE_FAIL_PROBABILITY");
    const char* seed = getenv("MEMUSAGE_FAIL_SEED");
    int given = (at != nullptr) + (from != nullptr) + (probability != nullptr);
    if (given > 1) {
        reject(config, "MEMUSAGE_FAIL_*", kOneInjectionExpected);
        return;
    }
    GateConfig& gate = config.gate;
    if (at != nullptr || from != nullptr) {
        const char* variable = at != nullptr ? "MEMUSAGE_FAIL_AT" : "MEMUSAGE_FAIL_FROM";
        uint64_t nth;
        if (!parse_count(at != nullptr ? at : from, nth) || nth == 0) {
            reject(config, variable, kCallNumberExpected);
            return;
        }
        gate.injection = at != nullptr ? Injection::nth_call : Injection::from_nth_call;
        gate.nth = nth;
    } else if (probability != nullptr) {
        if (!parse_probability(probability, gate.probability)) {
            reject(config, "MEMUSAGE_FAIL_PROBABILITY", kProbabilityExpected);
            return;
        }
        if (seed != nullptr && !parse_count(seed, gate.seed)) {
            reject(config, "MEMUSAGE_FAIL_SEED", kSeedExpected);
            return;
        }
        gate.injection = Injection::random;
    }
}

}  // namespace

Config Config::read(const char* (*getenv)(const char*), const char* program_name) {
    Config config;
    const char* wanted = getenv("MEMUSAGE_PROG_NAME");
    if (wanted != nullptr && (program_name == nullptr || strcmp(wanted, program_name) != 0)) {
        config.profiled = false;
        return config;
    }
    const char* output = getenv("MEMUSAGE_OUTPUT");
    if (output != nullptr && output[0] != '\0') config.output = output;
    if (const char* owner = getenv(kOutputOwnerVariable))
        config.output_owner = strtol(owner, nullptr, 10);
    config.buffer_records = parse_buffer_records(getenv("MEMUSAGE_BUFFER_SIZE"));
    config.timer = getenv("MEMUSAGE_NO_TIMER") == nullptr;
    config.trace_mmap = getenv("MEMUSAGE_TRACE_MMAP") != nullptr;
    const char* sites = getenv("MEMUSAGE_SITES");
    if (sites != nullptr && sites[0] != '\0') config.sites = sites;
    const char* stack_peak = getenv("MEMUSAGE_STACK_PEAK");
    if (stack_peak != nullptr && stack_peak[0] != '\0') config.stack_peak = stack_peak;
    if (const char* owner = getenv(kSitesOwnerVariable))
        config.sites_owner = strtol(owner, nullptr, 10);
    if (const char* sample = getenv("MEMUSAGE_SITES_SAMPLE")) {
        uint64_t interval;
        if (parse_size(sample, interval) && interval >= 1 && interval <= kMaxSampleInterval)
            config.sites_sample = interval;
        else
            reject(config, "MEMUSAGE_SITES_SAMPLE", kSampleExpected);
    }
    if (const char* seed = getenv("MEMUSAGE_SITES_SEED")) {
        if (parse_count(seed, config.sites_seed))
            config.sites_seeded = true;
        else
            reject(config, "MEMUSAGE_SITES_SEED", kSeedExpected);
    }
    const char* verify = getenv("MEMUSAGE_SITES_VERIFY");
    config.sites_verify = verify != nullptr && verify[0] != '\0' && strcmp(verify, "0") != 0;
    const char* events = getenv("MEMUSAGE_EVENTS");
    if (events != nullptr && events[0] != '\0') config.events = events;
    if (const char* owner = getenv(kEventsOwnerVariable))
        config.events_owner = strtol(owner, nullptr, 10);
    const char* summary_file = getenv("MEMUSAGE_SUMMARY_FILE");
    if (summary_file != nullptr && summary_file[0] != '\0') config.summary_file = summary_file;
    if (const char* owner = getenv(kSummaryFileOwnerVariable))
        config.summary_file_owner = strtol(owner, nullptr, 10);
    const char* color = getenv("MEMUSAGE_COLOR");
    if (color != nullptr && strcmp(color, "always") == 0) config.color = ColorMode::always;
    if (color != nullptr && strcmp(color, "never") == 0) config.color = ColorMode::never;
    if (const char* limit = getenv("MEMUSAGE_LIMIT")) {
        if (parse_size(limit, config.gate.limit))
            config.gate.limited = true;
        else
            reject(config, "MEMUSAGE_LIMIT", kSizeExpected);
    }
    read_injection(config, getenv);
    config.thread_table = getenv("MEMUSAGE_THREADS") != nullptr;
    const char* live = getenv("MEMUSAGE_LIVE");
    config.live = live != nullptr && live[0] != '\0' && strcmp(live, "0") != 0;
    config.unpublished = live != nullptr && strcmp(live, "0") == 0;
    return config;
}

}  // namespace memusage
