// SPDX-License-Identifier: MIT
// Reads of this process's own memory at addresses that may not be mapped (the stack
// words libunwind guesses frames from, the code at a guessed return address), without a
// fault and without the program's descriptors. Async-signal-safe; errno is left alone.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memusage::own_memory {

// Copies `bytes` (at most 64) from `address` into `to`; false, with nothing read, where
// they are not all readable.
bool read(void* to, uintptr_t address, size_t bytes);

}  // namespace memusage::own_memory
