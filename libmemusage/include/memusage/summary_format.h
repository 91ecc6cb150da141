// SPDX-License-Identifier: MIT
// The summary file (MEMUSAGE_SUMMARY_FILE): the figures of the summary the collector prints
// at exit, for readers (memusagestat --html) that must not parse text. The collector writes
// it once, at the program's normal exit, beside the printed summary and from the same Stats
// snapshot (a run that dies prints no summary and leaves the file empty); only the profiled
// process writes it (MEMUSAGE_SUMMARY_FILE_OWNER, as the sites file).
//
//   FileHeader   (its magic written last: a run killed while writing leaves no valid file)
//   Stats        (memusage/stats.h, as the collector holds it: stats_bytes bytes)
//   command      (version 2, flag kCommand: the program's command line as /proc/self/cmdline
//                 held it when the collector started, each word ended by a NUL, at most
//                 kMostCommandBytes; the rest of the file)
//
// Native byte order, which the header states so that a reader on another machine can say
// why it cannot read the file. Every field is 64 bits wide whatever the word size (which
// the header states too), so a 32-bit board's file reads on the desktop.
#pragma once

#include <cstdint>

#include "memusage/stats.h"

namespace memusage::summary_format {

inline constexpr char kMagic[8] = {'M', 'U', 'S', 'U', 'M', 'M', 'R', '\n'};
inline constexpr uint32_t kVersion = 2;
// Written as a native uint32_t: read back as these bytes on a machine of the other order.
inline constexpr uint32_t kByteOrderMark = 0x01020304;

// FileHeader::flags
inline constexpr uint32_t kMmapRows = 1;  // the summary printed the mmap rows (-m)
inline constexpr uint32_t kCommand = 2;   // the command line follows the figures

// A longer command line is cut here (at a word's end when one fits).
inline constexpr uint32_t kMostCommandBytes = 4096;

struct FileHeader {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;  // sizeof(FileHeader); a later version may append fields
    uint32_t byte_order;    // kByteOrderMark
    uint32_t word_bytes;    // sizeof(void*) of the profiled program
    uint32_t stats_bytes;   // sizeof(Stats)
    uint32_t flags;         // kMmapRows
    uint64_t pid;
    // The cycle counter that stamps the data file's and the recording's events, and the
    // monotonic clock (ns), read together when the collector started and when it wrote this
    // file: their ratio converts the data file's times to seconds. 0: not read.
    uint64_t start_cycles, start_ns;
    uint64_t end_cycles, end_ns;
};
static_assert(sizeof(FileHeader) == 72);

inline constexpr uint32_t kStatsBytes = sizeof(Stats);

}  // namespace memusage::summary_format
