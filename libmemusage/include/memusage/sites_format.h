// SPDX-License-Identifier: MIT
// The sites file (MEMUSAGE_SITES): where a run's heap came from. The collector writes it
// once, at exit; memusagestat --sites reads it. Native byte order, every part 8-byte
// aligned, addresses raw: symbols are looked up afterwards, never in the profiled process.
//
//   FileHeader
//   module_count x { ModuleRecord, build-id bytes, path bytes, zeros up to 8-byte alignment }
//   site_count   x { SiteRecord, depth x u64 return addresses, innermost first }
//   stack_peak_count x { StackPeakRecord, depth x StackPeakFrame, innermost first,
//                        outer x StackPeakOuterFrame (version 5) }                  (version 3)
//   site_count x SiteExtraRecord, in the sites' order             (when flags has kHasSiteExtras)
//   u64 count, count x StreamBufferRecord          (when flags has kHasStandardStreamBuffers)
//   u64 count, count x GrownAtRecord                 (version 6, when flags has kHasGrownAt)
//   FileTrailer
//
// The header's magic is written last, so a run killed while writing leaves a file that
// no reader takes for a complete one.
#pragma once

#include <cstdint>

#include "memusage/machine_format.h"

namespace memusage::sites_format {

inline constexpr char kMagic[8] = {'M', 'U', 'S', 'I', 'T', 'E', 'S', '\n'};
inline constexpr char kTrailerMagic[8] = {'M', 'U', 'S', 'I', 'T', 'E', 'N', 'D'};
// 2: the header's sampling interval and first refused allocation (version 1 files have
// neither, and are read as exact and without one).
// 3: the threads' stack peaks after the sites (the header's stack_peak_count, which was
// reserved and zero). A reader of version 2 refuses the file by its version, rather than
// taking the peaks for part of the sites or the trailer; versions 1 and 2 read as without.
// 4: the header ends with the writing machine's stamp (machine_format.h: byte order, word
// size, ELF machine), so a desktop reads a board's file or says why not; versions 1 to 3
// read as written on the reader's own kind of machine. Version 4 files may also carry the
// sites' extra figures (kHasSiteExtras); a reader of version 3 refuses them by the version.
// 5: a stack peak deeper than kMaxStackPeakDepth frames carries the frames beyond them,
// folded by instruction (StackPeakOuterFrame), so that what they held is known by function;
// a reader of version 4 refuses them by the version.
// 6: where blocks grew (kHasGrownAt): after the standard streams' buffers, the blocks still
// held at exit and at the peak by each pair of a site and the stack of the realloc that
// last grew them (GrownAtRecord); those stacks are sites of the file, with or without
// figures of their own. A reader of version 5 refuses them by the version; versions 1 to 5
// read as without.
inline constexpr uint32_t kVersion = 6;

// The deepest stack kept: frames beyond it (towards main) are dropped.
inline constexpr uint32_t kMaxDepth = 64;

// The most frames kept of a stack peak one by one: a recursion a hundred deep fits. The
// outermost of them and the frames beyond it (towards main) are kept folded by instruction,
// at most kMaxStackPeakOuter of them (the rest in one entry whose ip is 0), unwound to
// kMaxStackPeakUnwound frames in all (what lies beyond is added to the last one).
inline constexpr uint32_t kMaxStackPeakDepth = 128;
inline constexpr uint32_t kMaxStackPeakOuter = 32;
inline constexpr uint32_t kMaxStackPeakUnwound = 16384;

// The site of every stack first seen after the collector's stack table filled up; its
// stack is empty.
inline constexpr uint32_t kTableFullSiteId = 1;

// FileHeader::flags
inline constexpr uint32_t kEndedByCrash = 1;     // written from a fatal signal's handler
inline constexpr uint32_t kStackTableFull = 2;   // later new stacks count under one site
inline constexpr uint32_t kUnwinderMissing = 4;  // libunwind could not be loaded: no stacks
// Version 3 on: the run kept stack peaks only (memusage --stack-peak without --sites): no
// allocation site was recorded, so having none says nothing of the heap.
inline constexpr uint32_t kNoAllocationSites = 8;
// Version 3 on: more threads reached a stack peak than the collector keeps, and some peaks
// (of ended threads, the smallest first) were dropped.
inline constexpr uint32_t kStackPeaksDropped = 16;
// Version 4 on: the sites' extra figures (SiteExtraRecord) follow the stack peaks.
inline constexpr uint32_t kHasSiteExtras = 32;
// Version 4 on: the buffers the standard streams (stdin, stdout, stderr) held at exit
// (StreamBufferRecord) follow the site extras. A stream's buffer comes from stdio's own
// call, whichever stream it is for: only these say which buffers are the C library's own,
// kept until exit by design, and which are of streams the program opened and never closed.
inline constexpr uint32_t kHasStandardStreamBuffers = 64;
// Version 4 on: the header ends with heap_at_exit (header_bytes says it is there too).
inline constexpr uint32_t kHasHeapAtExit = 128;
// Version 6 on: the GrownAtRecords follow the standard streams' buffers.
inline constexpr uint32_t kHasGrownAt = 256;
// Version 6 on: the collector's table of GrownAtRecords filled up: some grown blocks are
// counted at their site but in no record.
inline constexpr uint32_t kGrownAtTableFull = 512;
// The collector was attached to a running process (memusage --attach): the figures count the
// blocks allocated since the attach, and "at exit" is at the detach (or the process's exit,
// if that came first). A reader of an older version ignores it.
inline constexpr uint32_t kSinceAttach = 1024;

struct FileHeader {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;  // sizeof(FileHeader); a later version may append fields
    uint64_t heap_peak;     // the heap's largest size: the moment bytes_at_peak describe
    uint32_t module_count;
    uint32_t site_count;
    uint32_t flags;      // kEndedByCrash | kStackTableFull | kUnwinderMissing
    uint32_t max_depth;  // kMaxDepth when written
    uint64_t pid;
    // Version 2 on. 0: exact figures. Else the figures are estimates from sampling one point
    // every this many bytes on average, each sampled block weighted by the inverse of its
    // probability of being sampled.
    uint64_t sample_interval;
    // The site of the first allocation call the allocation limit or failure injection made
    // fail (its SiteRecord is written even without figures); 0 for none.
    uint32_t first_refused_site;
    // Version 3 on (reserved and zero before): the StackPeakRecords after the sites.
    uint32_t stack_peak_count;
    // Version 4 on.
    machine_format::MachineStamp machine;
    // With kHasHeapAtExit: the heap's bytes when the run ended, exactly, sampled sites or not
    // (what the leak figures of sampled sites estimate).
    uint64_t heap_at_exit;
};
static_assert(sizeof(FileHeader) == 80);
inline constexpr uint32_t kVersion4HeaderBytes = 72;
inline constexpr uint32_t kVersion1HeaderBytes = 48;
inline constexpr uint32_t kVersion3HeaderBytes = 64;

// A loaded ELF object (the program, a library) as it was mapped at exit.
struct ModuleRecord {
    uint64_t load_bias;  // run-time address = ELF virtual address + load_bias
    uint64_t start;      // run-time addresses its loadable segments span: [start, end)
    uint64_t end;
    uint32_t build_id_bytes;  // NT_GNU_BUILD_ID's descriptor; 0 when it has none
    uint32_t path_bytes;      // no terminating zero
};
static_assert(sizeof(ModuleRecord) == 32);

// One allocation site: a distinct call stack and what the blocks allocated there did.
// A realloc keeps the block at its site: growth counts as bytes allocated, shrinking as
// bytes freed. Bytes still held at exit are bytes_allocated - bytes_freed.
struct SiteRecord {
    uint64_t blocks_allocated;  // successful malloc, calloc, aligned and realloc(NULL) calls
    uint64_t bytes_allocated;
    uint64_t blocks_freed;
    uint64_t bytes_freed;
    uint64_t bytes_at_peak;  // held when the heap was at heap_peak, exactly
    uint32_t depth;          // return addresses that follow
    uint32_t id;             // the collector's id for the stack (for diagnostics)
};
static_assert(sizeof(SiteRecord) == 48);

// Figures of a site that SiteRecord has no room for, one per SiteRecord, in the same order.
struct SiteExtraRecord {
    uint64_t blocks_at_peak;    // blocks held when the heap was at heap_peak, exactly
    uint64_t temporary_blocks;  // of blocks_freed, those freed before their thread's next
                                // allocation (heaptrack's "temporary allocations")
    uint64_t temporary_bytes;   // their bytes
};
static_assert(sizeof(SiteExtraRecord) == 24);

// A standard stream's buffer still allocated at exit, counted at its site.
struct StreamBufferRecord {
    uint32_t site_id;  // SiteRecord::id of the stack that allocated it
    uint32_t reserved;
    uint64_t bytes;    // its size
    uint64_t address;  // the block's, as the event recording names it
};
static_assert(sizeof(StreamBufferRecord) == 24);
inline constexpr uint32_t kMaxStreamBuffers = 3;

// Blocks of one site that a realloc made larger than they were, by the stack of the realloc
// that did so last (version 6 on). Its figures are a share of the site's own: what those
// blocks held when the heap was at heap_peak (as SiteRecord::bytes_at_peak), and at exit
// (of the site's bytes_allocated - bytes_freed). Only pairs with blocks held at one of the
// two moments are written.
struct GrownAtRecord {
    uint32_t site_id;   // SiteRecord::id of the blocks' site
    uint32_t grown_at;  // SiteRecord::id of the realloc's stack
    uint64_t bytes_at_peak;
    uint64_t blocks_at_peak;
    uint64_t bytes_at_exit;
    uint64_t blocks_at_exit;
};
static_assert(sizeof(GrownAtRecord) == 40);
inline constexpr uint64_t kMaxGrownAtRecords = uint64_t{1} << 14;

// Which stack a thread was on when its stack peak was captured (StackPeakRecord::stack).
// A stack the collector does not know the base of (a coroutine's, makecontext's) is never
// measured, so never a peak.
inline constexpr uint32_t kThreadStack = 0;  // the thread's own, from its first stack pointer
inline constexpr uint32_t kSignalStack =
    1;  // its alternate signal stack (sigaltstack), from its top

// One thread's stack at the deepest point the collector captured it (version 3 on): where a
// call into the collector or a profiling tick found the thread's stack deeper than any time
// before by a margin (1 KiB, or 5% of the last captured depth when that is more).
struct StackPeakRecord {
    uint64_t bytes;    // the stack's depth: its base less the stack pointer
    uint64_t base;     // the address it is measured from (the outermost frame holds base - sp)
    uint64_t time_ns;  // when, in nanoseconds since the collector started
    uint64_t tid;      // the kernel's thread id
    uint32_t is_main;  // 1 for the process's main thread
    uint32_t stack;    // kThreadStack or kSignalStack
    uint32_t depth;    // StackPeakFrames that follow, at most kMaxDepth
    uint32_t flags;    // kPeakFromTick | kPeakFramesCut | outer frames << kPeakOuterShift
    char name[16];     // the thread's name (prctl) when captured, zero-padded
};
static_assert(sizeof(StackPeakRecord) == 64);

// StackPeakRecord::flags
inline constexpr uint32_t kPeakFromTick = 1;  // captured by a profiling tick, not in a call
inline constexpr uint32_t kPeakFramesCut =
    2;  // deeper than kMaxStackPeakDepth: outer frames dropped (version 5: folded)
// Version 5: how many StackPeakOuterFrames follow the record's frames.
inline constexpr uint32_t kPeakOuterShift = 16;

// A frame of a stack peak: its instruction pointer (a return address, except for the
// innermost frame of a tick's capture: the interrupted instruction) and its stack pointer.
// The bytes a frame holds are its caller's stack pointer less its own.
struct StackPeakFrame {
    uint64_t ip;
    uint64_t sp;
};
static_assert(sizeof(StackPeakFrame) == 16);

// Version 5: frames of a cut stack peak beyond the ones kept (the outermost kept one
// included), folded by instruction pointer: how many frames had it, and the bytes of the
// measured stack they held (as StackPeakFrame's). ip 0: the frames beyond the last entry.
struct StackPeakOuterFrame {
    uint64_t ip;
    uint64_t bytes;
    uint32_t frames;
    uint32_t reserved;
};
static_assert(sizeof(StackPeakOuterFrame) == 24);

struct FileTrailer {
    char magic[8];
    uint64_t file_bytes;  // the whole file, trailer included
};
static_assert(sizeof(FileTrailer) == 16);

inline constexpr uint64_t padded_to_8(uint64_t bytes) { return (bytes + 7) & ~uint64_t{7}; }

}  // namespace memusage::sites_format
