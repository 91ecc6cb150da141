// SPDX-License-Identifier: MIT
// Which machine the collector is built for, as its files state it (memusage/machine_format.h).
#pragma once

#include <elf.h>

#include <cstdint>

namespace memusage::machine {

#if defined(__x86_64__)
inline constexpr uint16_t kElfMachine = EM_X86_64;
#elif defined(__i386__)
inline constexpr uint16_t kElfMachine = EM_386;
#elif defined(__aarch64__)
inline constexpr uint16_t kElfMachine = EM_AARCH64;
#elif defined(__arm__)
inline constexpr uint16_t kElfMachine = EM_ARM;
#elif defined(__riscv)
inline constexpr uint16_t kElfMachine = EM_RISCV;
#else
inline constexpr uint16_t kElfMachine = EM_NONE;
#endif

inline constexpr uint8_t kWordBytes = sizeof(void*);

// glibc's data-file time unit here (data_file_clock.h): 1 the cycle counter, 2 microseconds.
#if defined(__x86_64__) || defined(__i386__)
inline constexpr uint8_t kDataFileTime = 1;
#else
inline constexpr uint8_t kDataFileTime = 2;
#endif

}  // namespace memusage::machine
