// SPDX-License-Identifier: MIT
// A memory barrier run on every thread of the process at once, at the cost of one
// system call for the thread that asks. It lets one thread record without any fence
// of its own until another thread appears (see Recorder's direct recording).
#pragma once

namespace memusage::process_barrier {

// Registers the process with the kernel; false when the kernel offers no such barrier.
bool prepare();
// Every thread of the process has run a full memory barrier when this returns.
void run();

}  // namespace memusage::process_barrier
