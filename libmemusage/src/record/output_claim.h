// SPDX-License-Identifier: MIT
// Which process of a run may write the data file (see memusage/run_start.h): the first of
// a run marks its start in the environment; the profiled process asks on what condition
// it may take the file.
#pragma once

#include "memusage/run_start.h"

namespace memusage::output_claim {

// Called in every process the collector starts in, profiled or not, before anything reads
// the configuration, and before the program's main (so that a shell passes the mark on).
// The first process of a run records the state of the file MEMUSAGE_OUTPUT names; a new
// run also forgets an owner an enclosing run left in the environment.
void mark_run_start();

// The state the file had when this run began, for the process about to take it: false
// when no run was marked (the process then takes the file as glibc's would).
bool state_at_run_start(const char* output, FileState& state);

}  // namespace memusage::output_claim
