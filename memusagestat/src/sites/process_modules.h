// SPDX-License-Identifier: MIT
// The modules a running process has mapped now, read from /proc/PID/maps, as a sites
// file lists a finished run's: for a Symbolizer of a live process (memusage --live).
#pragma once

#include <sys/types.h>

#include <vector>

#include "read/sites_reader.h"

namespace memusagestat {

// Each ELF file mapped by the process, with its load bias and its build-id read from the
// file; empty when the maps cannot be read (no such process, or not this user's).
std::vector<SitesModule> process_modules(pid_t pid);

}  // namespace memusagestat
