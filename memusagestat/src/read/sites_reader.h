// A sites file (memusage/sites_format.h) read into plain data: every length and count is
// checked against the file's size, nothing in it is trusted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

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
    std::vector<SitesModule> modules;
    std::vector<AllocationSite> sites;
};

// Interprets a whole sites file held in memory. Returns an empty string on success, else
// a message for the user.
std::string parse_sites(std::span<const std::byte> bytes, SitesProfile& profile);

// Reads and interprets the file at `path`; the same messages, plus those of reading.
std::string read_sites_file(const std::string& path, SitesProfile& profile);

}  // namespace memusagestat
