// SPDX-License-Identifier: MIT
// memusage --attach=PID and --detach=PID: the collector loaded into a running process and
// started there (docs/attach.md), and later told to give the process back and report.
#pragma once

#include <sys/types.h>

#include "options.h"

namespace memusage::attach {

// The exit status of the command: 0 when done, 1 with a one-line message when refused.
int attach_to(pid_t pid, const DriverOptions& options);
int detach_from(pid_t pid);

}  // namespace memusage::attach
