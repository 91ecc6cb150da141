#include "config.h"

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
    if (const char* owner = getenv(kSitesOwnerVariable))
        config.sites_owner = strtol(owner, nullptr, 10);
    const char* color = getenv("MEMUSAGE_COLOR");
    if (color != nullptr && strcmp(color, "always") == 0) config.color = ColorMode::always;
    if (color != nullptr && strcmp(color, "never") == 0) config.color = ColorMode::never;
    return config;
}

}  // namespace memusage
