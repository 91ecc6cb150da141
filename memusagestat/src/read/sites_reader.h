// SPDX-License-Identifier: MIT
// A sites file (memusage/sites_format.h) read into plain data: every length and count is
// checked against the file's size, nothing in it is trusted.
#pragma once

#include <memusage/machine_format.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "memusage/status.h"

namespace memusagestat {

struct SitesModule {
    uint64_t load_bias = 0;  // run-time address = ELF virtual address + load_bias
    uint64_t start = 0, end = 0;
    std::string build_id;  // raw bytes; empty when the module had none
    std::string path;
};

struct AllocationSite {
    uint64_t blocks_allocated = 0, bytes_allocated = 0;
    uint64_t blocks_freed = 0, bytes_freed = 0;
    uint64_t bytes_at_peak = 0;
    // From the site extras (sites_format.h, kHasSiteExtras); 0 in files without them.
    uint64_t blocks_at_peak = 0;
    uint64_t temporary_blocks = 0;  // freed before their thread's next allocation
    uint64_t temporary_bytes = 0;
    uint32_t id = 0;
    std::vector<uint64_t> frames;  // return addresses, innermost first

    // Still allocated when the program ended.
    uint64_t blocks_leaked() const {
        return blocks_allocated > blocks_freed ? blocks_allocated - blocks_freed : 0;
    }
    uint64_t bytes_leaked() const {
        return bytes_allocated > bytes_freed ? bytes_allocated - bytes_freed : 0;
    }
};

// Which stack a stack peak was on.
enum class PeakStack { thread, signal };

// One thread's stack at the deepest point the collector captured it: a new peak beyond the
// last captured by 1 KiB or 5% (so within that margin of the thread's true peak).
struct StackPeak {
    struct Frame {
        uint64_t ip;  // a return address, except the innermost frame of a tick's capture
        uint64_t sp;  // the frame's stack pointer
    };
    uint64_t tid = 0;
    bool main_thread = false;
    std::string thread_name;  // as the thread was named when captured; may be empty
    PeakStack stack = PeakStack::thread;
    bool from_tick = false;     // captured by a profiling tick, not in an allocation call
    bool frames_cut = false;    // more frames than the collector keeps: the outer ones folded
    uint64_t time_ns = 0;       // since the collector started
    uint64_t bytes = 0;         // the stack's depth: base - the stack pointer where measured
    uint64_t base = 0;          // what the depth is measured from
    std::vector<Frame> frames;  // innermost first
    // A cut stack's frames from the outermost kept one on, folded by instruction (files of
    // version 5 on; empty before): the bytes they held and how many frames they were.
    // ip 0: frames beyond the collector's room for distinct instructions, or for unwinding.
    struct OuterFrame {
        uint64_t ip;
        uint64_t bytes;
        uint32_t frames;
    };
    std::vector<OuterFrame> outer;

    // The bytes frame `i` holds of the measured stack: from its stack pointer up to its
    // caller's (the base for the outermost frame), within [base - bytes, base]. Frames of
    // another stack (the code a handler on an alternate stack interrupted) and frames above
    // the base (the C library's start of the program, above where main's stack is measured
    // from) hold none of it. The outermost frame kept of a cut stack: unknown, 0.
    uint64_t frame_bytes(size_t i) const {
        if (i + 1 == frames.size() && frames_cut) return 0;
        uint64_t outer = i + 1 < frames.size() ? frames[i + 1].sp : base;
        return measured_between(frames[i].sp, outer);
    }
    // What the frames dropped from a cut stack held, with the outermost kept one.
    uint64_t outer_bytes() const {
        if (!frames_cut || frames.empty()) return 0;
        return measured_between(frames.back().sp, base);
    }
    uint64_t measured_between(uint64_t low, uint64_t high) const {
        uint64_t deepest = base > bytes ? base - bytes : 0;
        low = low > deepest ? low : deepest;
        high = high < base ? high : base;
        return high > low ? high - low : 0;
    }
};

struct SitesProfile {
    uint64_t heap_peak = 0;
    uint64_t pid = 0;
    bool ended_by_crash = false;
    bool stack_table_full = false;
    bool unwinder_missing = false;
    // 0: exact figures. Else the figures are estimates from sampling every this many bytes
    // on average (memusage --sites-sample).
    uint64_t sample_interval = 0;
    // The site (AllocationSite::id) of the first allocation call the allocation limit or
    // failure injection made fail; 0 for none. Its site may have no figures.
    uint32_t first_refused_site = 0;
    // The most frames the collector kept of a stack: a stack this deep was cut, its outer
    // callers not recorded. 0 when not known.
    uint32_t max_depth = 0;
    // False when the run kept stack peaks only (memusage --stack-peak): no site recorded.
    bool has_allocation_sites = true;
    // More threads reached a stack peak than the collector keeps: some ended threads'
    // smaller peaks are missing.
    bool stack_peaks_dropped = false;
    // The sites' blocks at the peak and temporary blocks are known (sites_format.h's
    // kHasSiteExtras); false for files written before them, where they read as 0.
    bool has_site_extras = false;
    // The standard streams' buffers still allocated at exit (sites_format.h's
    // kHasStandardStreamBuffers): the C library's own. Without them (older files) every
    // stream buffer is taken for one of those.
    bool knows_standard_streams = false;
    struct StreamBuffer {
        uint32_t site_id = 0;
        uint64_t bytes = 0;
        uint64_t address = 0;
    };
    std::vector<StreamBuffer> standard_stream_buffers;
    // The machine that wrote the file (version 4 on); all zero: not stated.
    memusage::machine_format::MachineStamp machine = {};
    // The heap's bytes at exit, exactly, when the file says (sites_format.h's kHasHeapAtExit).
    bool has_heap_at_exit = false;
    uint64_t heap_at_exit = 0;
    // The run was an attach (sites_format.h's kSinceAttach): the blocks allocated since the
    // attach, and what was still allocated at the detach.
    bool since_attach = false;
    // Where blocks grew (sites_format.h's GrownAtRecord, version 6 on): blocks of a site
    // that a realloc made larger, by the stack (a site of `sites`) of the realloc that did
    // so last; what they held at the peak and at exit, shares of their site's figures.
    struct Grown {
        uint32_t site_id = 0, grown_at = 0;
        uint64_t bytes_at_peak = 0, blocks_at_peak = 0;
        uint64_t bytes_at_exit = 0, blocks_at_exit = 0;
    };
    bool knows_grown_at = false;
    bool grown_at_table_full = false;  // some grown blocks are in no record
    std::vector<Grown> grown;
    std::vector<SitesModule> modules;
    std::vector<AllocationSite> sites;
    std::vector<StackPeak> stack_peaks;  // version 3 on; in no particular order
};

// Interprets a whole sites file held in memory; failing, a message for the user.
memusage::Status parse_sites(std::span<const std::byte> bytes, SitesProfile& profile);

// Reads and interprets the file at `path`; the same messages, plus those of reading.
memusage::Status read_sites_file(const std::string& path, SitesProfile& profile);

}  // namespace memusagestat
