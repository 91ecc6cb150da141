// SPDX-License-Identifier: MIT
// memusage --attach=PID and --detach=PID: the collector loaded into a running process and
// started there (docs/attach.md), and later told to give the process back and report.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "options.h"

namespace memusage::attach {

// What an attach asked for beyond the summary (the sites' reports and exports, --html),
// kept from the attach for the detach, which makes them from the files the collector wrote.
struct AttachedRun {
    std::vector<std::string> arguments;  // the attach's command line; empty: the summary only
    std::string directory;               // its working directory, where its names lead
    std::string data_path, sites_path, events_path, summary_path;  // empty: not written
    std::vector<std::string> private_files;  // those no option named: removed once used
    uint64_t attach_ns = 0;                  // when it attached, since the epoch
};

// The exit status of the command: 0 when done, 1 with a one-line message when refused.
int attach_to(pid_t pid, const DriverOptions& options);
// Prints the summary; `run` receives what the attach asked for beyond it.
int detach_from(pid_t pid, AttachedRun& run);

}  // namespace memusage::attach
