// SPDX-License-Identifier: MIT
// What the collector's own files (sites, events) say of the machine that wrote them, so
// that memusagestat on another machine (the desktop, for a run on a board) reads them, or
// says why it cannot. Appended to their headers (sites version 4, events version 3).
#pragma once

#include <cstdint>

namespace memusage::machine_format {

// Written as a native uint32_t: read on a machine of the other byte order, it is swapped.
inline constexpr uint32_t kByteOrderMark = 0x01020304;

// The unit of the glibc data file's times on that machine, as glibc's collector chose it.
enum DataFileTime : uint8_t {
    kDataFileTimeUnknown = 0,
    kCycleCounter = 1,  // x86-64, i686: the time-stamp counter
    kMicroseconds = 2,  // everywhere else: CLOCK_REALTIME in microseconds
};

struct MachineStamp {
    uint32_t byte_order;     // kByteOrderMark
    uint16_t elf_machine;    // the ELF e_machine of the profiled program (EM_AARCH64, ...)
    uint8_t word_bytes;      // its sizeof(void*)
    uint8_t data_file_time;  // DataFileTime
};
static_assert(sizeof(MachineStamp) == 8);

// A header's version field, read on this machine, when the file was written on a machine
// of the other byte order: a small number swapped.
inline bool version_looks_swapped(uint32_t version) {
    return version > 0xffff && __builtin_bswap32(version) <= 0xffff;
}

}  // namespace memusage::machine_format
