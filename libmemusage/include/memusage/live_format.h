// SPDX-License-Identifier: MIT
// The live figures: a small shared file each profiled process keeps while it runs, for
// `memusage --ps`, `--watch` and `--live` to read. Every profiled process keeps one: the
// figures the collector already counts are copied into it from the program's own calls
// (a thread's every 64th call looks at a coarse clock, and copies when the last copy
// is 200 ms old, or 1 ms for a call that changed the heap by 256 KiB or more), without a
// thread of the collector's; with MEMUSAGE_LIVE=1 (memusage --live) a thread copies them
// five times a second too, whatever the program does. MEMUSAGE_LIVE=0: no file.
//
//   DIRECTORY/<pid>    mode 0600, created with O_EXCL | O_NOFOLLOW, its space reserved
//                      (posix_fallocate) before it is mapped
//
// in a directory of the user's own (memusage/live_directory.h). Its bytes are the
// writer's word only: a reader copies them (pread, never a mapping that a truncation
// could turn into SIGBUS) and bounds every count and name before using them.
//
// One Header, written once (its magic last), then Figures under a sequence counter (a
// seqlock): odd while the publisher writes, even when the copy is whole. A reader copies
// the figures and keeps the copy only when the counter was the same even number before
// and after. The file is removed at exit (a forked child makes its own, an exec'd image
// too); a killed run's file stays, and readers recognise it as stale: no process with
// its pid, or one started at another time (/proc/PID/stat's start time), and remove it.
// Native byte order and word size, stated in the header.
#pragma once

#include <cstdint>

#include "memusage/stats.h"

namespace memusage::live_format {

inline constexpr char kMagic[8] = {'M', 'U', 'L', 'I', 'V', 'E', '1', '\n'};
// 2: the top sites held now (Figures::sites). 3: Header::sites_wanted_ns.
inline constexpr uint32_t kVersion = 3;
inline constexpr uint32_t kByteOrderMark = 0x01020304;
// The collector's one warning when it cannot publish, "memusage: " before it and the
// reason after: --live finds it in the program's standard error to say why it has
// nothing to show.
inline constexpr char kNotPublished[] = "live figures not published: ";
// How often the collector publishes, and so how old a figure can be while the program
// calls the allocator (with MEMUSAGE_LIVE=1, whatever it does).
inline constexpr uint32_t kPublishMilliseconds = 200;
// A reader that wants the top sites (a pass over the site table, made only when asked)
// writes CLOCK_MONOTONIC's nanoseconds into Header::sites_wanted_ns, at most this long
// before each reading it wants them in.
inline constexpr uint32_t kSitesWantedMilliseconds = 3000;
// Running threads with a row of their own; the others are summed in Figures::others.
inline constexpr uint32_t kThreadRows = 64;

// The sites holding the most bytes now, with --sites; and the innermost return addresses
// of each one's stack kept (after the collector's own frames) for the reader to name.
inline constexpr uint32_t kSiteRows = 10;
inline constexpr uint32_t kSiteFrames = 16;

// Header::flags
inline constexpr uint32_t kMmapRows = 1;  // the mmap rows are counted (-m)
inline constexpr uint32_t kSites = 2;     // allocation sites are on: Figures::sites is kept

// A running thread's own calls. held = allocated - freed: what its calls added to the
// heap less what they took away (a block freed by another thread counts there).
struct ThreadFigures {
    uint64_t tid;
    uint64_t calls;
    uint64_t allocated;  // bytes its allocating calls asked for (a resize's growth)
    uint64_t freed;      // bytes its frees and resizes gave back (a shrinking one: its part)
    int64_t held;
    int64_t held_peak;  // the largest `held` the publisher saw for this thread
};

// A site's blocks held now. Sampled sites (MEMUSAGE_SITES_SAMPLE): weighted estimates.
struct HeldSite {
    uint64_t bytes;
    uint64_t blocks;
    uint32_t depth;  // return addresses in `frames`, innermost first
    uint32_t unused;
    uint64_t frames[kSiteFrames];
};

struct Figures {
    uint64_t published_ns;  // CLOCK_MONOTONIC when the copy was taken
    uint64_t publications;  // copies so far
    uint64_t heap_now, heap_peak, stack_peak, total_peak;
    uint64_t calls[kCallKinds];  // by memusage::Call, as the summary's rows
    uint64_t bytes[kCallKinds];
    uint64_t failed[kCallKinds];
    uint32_t threads;      // running threads that have counted a call
    uint32_t thread_rows;  // rows used in `rows`, largest `held` first
    ThreadFigures rows[kThreadRows];
    ThreadFigures others;  // the running threads without a row, summed (tid 0)
    // Sites used in `sites`, most bytes first: 0 without kSites, and without MEMUSAGE_LIVE=1
    // unless a reader asked (Header::sites_wanted_ns) within kSitesWantedMilliseconds.
    uint32_t site_rows;
    uint32_t unused;
    HeldSite sites[kSiteRows];
};

struct Header {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;  // sizeof(Header)
    uint32_t byte_order;    // kByteOrderMark
    uint32_t word_bytes;    // sizeof(void*) of the profiled program
    uint32_t flags;
    uint32_t pid;
    // The process's start in clock ticks since boot (/proc/PID/stat, field 22): a pid
    // reused by another process has another start.
    uint64_t start_ticks;
    uint64_t start_ns;  // CLOCK_MONOTONIC when the collector started
    char program[64];   // the short program name, NUL-terminated
    // The one word a reader writes (8 bytes at its offset, with pwrite): when it last asked
    // for the top sites (CLOCK_MONOTONIC nanoseconds; 0: never). Accessed atomically.
    uint64_t sites_wanted_ns;
    // The seqlock's counter: odd while Figures is being written. Accessed atomically.
    uint64_t sequence;
    Figures figures;
};

inline constexpr uint64_t kFileBytes = sizeof(Header);

}  // namespace memusage::live_format
