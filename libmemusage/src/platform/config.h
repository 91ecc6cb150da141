// SPDX-License-Identifier: MIT
// The MEMUSAGE_* environment, read once when the collector starts.
#pragma once

#include <cstdint>

#include "memusage/gate_report.h"

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
    // MEMUSAGE_STACK_PEAK: without MEMUSAGE_SITES, a sites file holding the threads' stack
    // peaks only; null when unset or empty. MEMUSAGE_SITES keeps them anyway.
    const char* stack_peak = nullptr;
    uint64_t sites_sample = 0;  // MEMUSAGE_SITES_SAMPLE: bytes between samples; 0 exact
    bool sites_seeded = false;  // MEMUSAGE_SITES_SEED given: the sampling's seed
    uint64_t sites_seed = 0;
    // MEMUSAGE_SITES_VERIFY: every stack taken along unwind rows is compared with
    // libunwind's, and a difference aborts the program (a test mode).
    bool sites_verify = false;
    const char* events = nullptr;  // MEMUSAGE_EVENTS: the event recording; null when unset or empty
    long events_owner = 0;         // MEMUSAGE_EVENTS_OWNER: the process writing it; 0 if none yet
    // MEMUSAGE_SUMMARY_FILE: the summary's figures, for memusagestat; null when unset or empty
    const char* summary_file = nullptr;
    long summary_file_owner = 0;  // MEMUSAGE_SUMMARY_FILE_OWNER: the process writing it
    GateConfig gate;              // MEMUSAGE_LIMIT and MEMUSAGE_FAIL_*
    bool thread_table = false;    // MEMUSAGE_THREADS: a row per thread after the summary
    // The live figures are published from the program's calls unless MEMUSAGE_LIVE is 0
    // (`unpublished`); any other value (`live`) adds the publisher's thread.
    bool live = false;
    bool unpublished = false;

    // Variables that were set but could not be used, each with what it should have
    // held: the collector says so on standard error and runs without them.
    struct Rejected {
        const char* variable;
        const char* expected;
    };
    static constexpr int kMaxRejected = 8;
    Rejected rejected[kMaxRejected] = {};
    int rejected_count = 0;

    // `getenv` is the lookup to use (tests pass their own); `program_name` is the
    // short name of the running program.
    static Config read(const char* (*getenv)(const char*), const char* program_name);
};

// Set by the process that opens the data file, for the programs it starts: they
// inherit MEMUSAGE_OUTPUT but must leave the file alone. An image exec'd in place of
// the owner has the owner's process ID, and takes the file over as glibc's would.
// Processes that do not descend from the owner are kept off by MEMUSAGE_OUTPUT_RUN
// (memusage/run_start.h).
inline constexpr const char kOutputOwnerVariable[] = "MEMUSAGE_OUTPUT_OWNER";
// The same for the allocation-sites file (MEMUSAGE_SITES).
inline constexpr const char kSitesOwnerVariable[] = "MEMUSAGE_SITES_OWNER";
// The same for the event recording (MEMUSAGE_EVENTS).
inline constexpr const char kEventsOwnerVariable[] = "MEMUSAGE_EVENTS_OWNER";
// The same for the summary file (MEMUSAGE_SUMMARY_FILE).
inline constexpr const char kSummaryFileOwnerVariable[] = "MEMUSAGE_SUMMARY_FILE_OWNER";

// Where the MEMUSAGE_LIMIT and MEMUSAGE_FAIL_* variables are wrong, the words that say
// what they should hold; the driver checks its options with the same parsers.
inline constexpr const char kSizeExpected[] =
    "a size in bytes: digits, then nothing or k, M, G (KiB, MiB, GiB)";
inline constexpr const char kCallNumberExpected[] = "a call number, 1 or more";
inline constexpr const char kProbabilityExpected[] = "a probability from 0 to 1";
inline constexpr const char kSeedExpected[] = "a seed: digits";
// The largest sampling interval (sampling.h gives its one-byte blocks a weight code).
inline constexpr uint64_t kMaxSampleInterval = uint64_t{1} << 30;
inline constexpr const char kSampleExpected[] =
    "a sampling interval in bytes, 1 to 1G: digits, then nothing or k, M, G (KiB, MiB, GiB)";
inline constexpr const char kOneInjectionExpected[] =
    "only one of MEMUSAGE_FAIL_AT, MEMUSAGE_FAIL_FROM and MEMUSAGE_FAIL_PROBABILITY";

// glibc's rule: leading digits; 0, garbage and anything above the default give the default.
uint32_t parse_buffer_records(const char* text);

}  // namespace memusage
