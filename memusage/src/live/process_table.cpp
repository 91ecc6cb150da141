// SPDX-License-Identifier: MIT
#include "live/process_table.h"

#include <cinttypes>
#include <cstdio>

#include "live/printable_text.h"

namespace memusage::live {

std::string process_table(const std::vector<RunningProcess>& processes, uint64_t now_ns) {
    if (processes.empty()) return "no profiled process is running (of this user's)\n";
    char line[256];
    std::snprintf(line, sizeof line, "%8s  %-16s %7s %14s %14s %10s\n", "pid", "program", "threads",
                  "heap now", "heap peak", "elapsed");
    std::string table = line;
    bool utf8 = locale_is_utf8();
    for (const RunningProcess& process : processes) {
        uint64_t seconds =
            now_ns > process.start_ns ? (now_ns - process.start_ns) / 1'000'000'000 : 0;
        char elapsed[32];
        std::snprintf(elapsed, sizeof elapsed, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
                      seconds / 3600, seconds / 60 % 60, seconds % 60);
        // The name is the file's word: escaped, then cut (an escape may be cut short, never
        // made whole).
        std::string name = printable(process.program, utf8);
        std::snprintf(line, sizeof line, "%8d  %-16.16s %7u %14" PRIu64 " %14" PRIu64 " %10s\n",
                      static_cast<int>(process.pid), name.c_str(), process.figures.threads,
                      process.figures.heap_now, process.figures.heap_peak, elapsed);
        table += line;
    }
    return table;
}

}  // namespace memusage::live
