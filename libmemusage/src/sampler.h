// SIGPROF sampling: a record per profiling-timer tick, so the graph shows time
// passing, and the stack measured where no allocation happens.
#pragma once

namespace memusage::sampler {

// Installs the handler and arms ITIMER_PROF at the smallest interval.
void start();
void stop();
// The program is installing its own SIGPROF disposition: from now on SIGPROF is its
// own, and our timer, if still armed, is disarmed.
void yield_to_program(int signal_number);

}  // namespace memusage::sampler
