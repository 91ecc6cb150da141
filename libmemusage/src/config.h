// The MEMUSAGE_* environment, read once when the collector starts.
#pragma once

#include <cstdint>

namespace memusage {

enum class ColorMode { automatic, always, never };

struct Config {
    static constexpr uint32_t kDefaultBufferRecords = 32768;

    bool profiled = true;          // MEMUSAGE_PROG_NAME unset or naming this program
    const char* output = nullptr;  // MEMUSAGE_OUTPUT, null when unset or empty
    long output_owner = 0;         // MEMUSAGE_OUTPUT_OWNER: the process writing it; 0 if none yet
    uint32_t buffer_records = kDefaultBufferRecords;
    bool timer = true;        // no MEMUSAGE_NO_TIMER
    bool trace_mmap = false;  // MEMUSAGE_TRACE_MMAP
    ColorMode color = ColorMode::automatic;
    const char* sites =
        nullptr;           // MEMUSAGE_SITES: the allocation-sites file; null when unset or empty
    long sites_owner = 0;  // MEMUSAGE_SITES_OWNER: the process writing it; 0 if none yet

    // `getenv` is the lookup to use (tests pass their own); `program_name` is the
    // short name of the running program.
    static Config read(const char* (*getenv)(const char*), const char* program_name);
};

// Set by the process that opens the data file, for the programs it starts: they
// inherit MEMUSAGE_OUTPUT but must leave the file alone. An image exec'd in place of
// the owner has the owner's process ID, and takes the file over as glibc's would.
inline constexpr const char kOutputOwnerVariable[] = "MEMUSAGE_OUTPUT_OWNER";
// The same for the allocation-sites file (MEMUSAGE_SITES).
inline constexpr const char kSitesOwnerVariable[] = "MEMUSAGE_SITES_OWNER";

// glibc's rule: leading digits; 0, garbage and anything above the default give the default.
uint32_t parse_buffer_records(const char* text);

}  // namespace memusage
