#include "sites/definitions.h"

namespace memusagestat {
namespace {

// glibc's stdio allocates a stream's buffer here, on the stream's first use, and keeps it
// until exit (only valgrind's __libc_freeres hook frees it). The lines getline and
// getdelim allocate for the program come from __getdelim itself, not from here.
bool allocates_stdio_buffer(const SourceFrame& frame) {
    return frame.function == "_IO_file_doallocate" || frame.function == "_IO_wfile_doallocate";
}

// glibc loads libgcc_s (dlopen) the first time a thread unwinds for pthread_exit or
// pthread_cancel, and keeps it until exit: __libc_unwind_link_get since glibc 2.34 (in the
// dynamic symbol table, so named without debug files), pthread_cancel_init and
// __libgcc_s_init before. These functions load nothing else.
bool loads_unwinder(const SourceFrame& frame) {
    return frame.function == "__libc_unwind_link_get" || frame.function == "pthread_cancel_init" ||
           frame.function == "__libgcc_s_init";
}

// Calls whose blocks the runtime keeps for as long as what they made lives, which
// programs rarely end: a library loaded with dlopen (its link map, until dlclose), a
// thread (its thread-local storage, kept with glibc's cache of thread stacks).
bool keeps_its_blocks(const std::string& via) {
    return via == "dlopen" || via == "dlmopen" || via == "pthread_create";
}

bool allocates_stream_buffer(const std::vector<SourceFrame>& frames, const ShownFrames& shown) {
    for (size_t i = 0; i < shown.first && i < frames.size(); ++i)
        if (allocates_stdio_buffer(frames[i])) return true;
    return false;
}

}  // namespace

bool kept_by_runtime(const std::vector<SourceFrame>& frames, const ShownFrames& shown) {
    if (frames.empty()) return false;
    if (shown.first == 0 && is_wrapper(frames[0])) return true;  // nothing but wrappers
    for (size_t i = 0; i < shown.first; ++i)
        if (allocates_stdio_buffer(frames[i]) || loads_unwinder(frames[i])) return true;
    return shown.via != nullptr && !shown.via->function.empty() &&
           keeps_its_blocks(short_name(shown.via->function));
}

AllocationSite kept_of_site(const AllocationSite& site, const SitesProfile& profile,
                            const std::vector<SourceFrame>& frames, const ShownFrames& shown,
                            bool& whole) {
    whole = false;
    AllocationSite kept;
    if (!kept_by_runtime(frames, shown)) return kept;
    const bool only_standard_streams =
        profile.knows_standard_streams && allocates_stream_buffer(frames, shown) &&
        !(shown.first == 0 && !frames.empty() && is_wrapper(frames[0]));
    if (!only_standard_streams) {
        whole = true;
        add_figures(kept, site);
        return kept;
    }
    // The standard streams' buffers, allocated here and never freed.
    for (const SitesProfile::StreamBuffer& buffer : profile.standard_stream_buffers) {
        if (buffer.site_id != site.id || kept.blocks_allocated >= site.blocks_leaked()) continue;
        ++kept.blocks_allocated;
        kept.bytes_allocated += buffer.bytes;
    }
    if (kept.bytes_allocated > site.bytes_leaked()) kept.bytes_allocated = site.bytes_leaked();
    return kept;
}

Amount leaked(const ShownSite& site) {
    const AllocationSite program = site.program_figures();
    return {program.bytes_leaked(), program.blocks_leaked()};
}

Amount kept_at_exit(const ShownSite& site) {
    return {site.kept_by_runtime.bytes_leaked(), site.kept_by_runtime.blocks_leaked()};
}

Amount at_peak(const ShownSite& site) {
    return {site.figures.bytes_at_peak, site.figures.blocks_at_peak};
}

Amount allocated(const ShownSite& site) {
    return {site.figures.bytes_allocated, site.figures.blocks_allocated};
}

Amount temporary(const ShownSite& site) {
    return {site.figures.temporary_bytes, site.figures.temporary_blocks};
}

namespace {

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

std::string site_identity(const ShownSite& site, const std::string& program) {
    std::string key = site.cut_at != 0 ? cut_root(site.cut_at) : "";
    key += site.via;
    for (const SourceFrame* cached : site.frames) {
        const SourceFrame& frame = *cached;
        const std::string module = file_name(frame.module);
        key +=
            "\n" + (module == program ? std::string("(program)") : module) + "!" + frame.function;
        if (frame.function.empty())
            key += "+" + std::to_string(frame.offset);
        else if (frame.line != 0 && frame.function_line != 0)
            key += ":+" + std::to_string(frame.line - frame.function_line);
        else if (frame.line != 0)  // no first line known: the line itself
            key += ":" + std::to_string(frame.line);
    }
    if (site.frames.empty() && !site.placeholder.empty()) key += "\n" + site.placeholder;
    return key;
}

std::string program_of(const SitesProfile& profile) {
    return profile.modules.empty() ? "" : file_name(profile.modules.front().path);
}

}  // namespace memusagestat
