// SPDX-License-Identifier: MIT
#include "record/process_barrier.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace memusage::process_barrier {
namespace {

int command = 0;  // the membarrier command that works here, once prepared

long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

}  // namespace

bool prepare() {
    long supported = membarrier(MEMBARRIER_CMD_QUERY);
    if (supported < 0) return false;
    // The expedited barrier interrupts only the CPUs running this process (Linux 4.14);
    // the global one waits for every CPU to pass a scheduling point, slower but older.
    if ((supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
        command = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
    else if ((supported & MEMBARRIER_CMD_GLOBAL) != 0)
        command = MEMBARRIER_CMD_GLOBAL;
    return command != 0;
}

void run() {
    if (membarrier(command) == 0) return;
    // Refused after all (a system-call filter installed since): store buffers drain
    // within microseconds, so a millisecond's pause has every thread's stores out.
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, nullptr);
}

}  // namespace memusage::process_barrier
