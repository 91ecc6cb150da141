// SPDX-License-Identifier: MIT
#include "sites/sites_file.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "memusage/sites_format.h"
#include "platform/build_variant.h"
#include "platform/machine.h"
#include "platform/pages.h"
#include "sites/stack_peaks.h"

namespace memusage {
namespace {

namespace format = sites_format;

// Sequential writes through a buffer of kernel pages, at explicit offsets.
class BufferedWriter {
  public:
    static constexpr size_t kBufferBytes = size_t{64} * 1024;

    explicit BufferedWriter(int fd)
        : fd_(fd), buffer_(static_cast<char*>(allocate_pages(kBufferBytes))) {
        ok_ = buffer_ != nullptr;
        if (!ok_) error_ = ENOMEM;
    }
    ~BufferedWriter() {
        if (buffer_ != nullptr) free_pages(buffer_, kBufferBytes);
    }
    BufferedWriter(const BufferedWriter&) = delete;
    BufferedWriter& operator=(const BufferedWriter&) = delete;

    void put(const void* data, size_t bytes) {
        const char* p = static_cast<const char*>(data);
        while (ok_ && bytes > 0) {
            size_t room = kBufferBytes - used_;
            size_t n = bytes < room ? bytes : room;
            memcpy(buffer_ + used_, p, n);
            used_ += n;
            p += n;
            bytes -= n;
            if (used_ == kBufferBytes) flush();
        }
    }
    void pad_to_8() {
        static constexpr char zeros[8] = {};
        put(zeros, format::padded_to_8(position()) - position());
    }
    uint64_t position() const { return offset_ + used_; }

    bool flush() {
        if (ok_ && used_ > 0) ok_ = write_at(buffer_, used_, offset_);
        offset_ += used_;
        used_ = 0;
        return ok_;
    }
    bool write_at(const void* data, size_t bytes, uint64_t offset) {
        if (write_fully_at(fd_, data, bytes, static_cast<off_t>(offset))) return true;
        error_ = errno;
        return false;
    }
    // Why the first failed write failed (an errno value); 0 while none has.
    int error() const { return error_; }

  private:
    int fd_;
    char* buffer_;
    size_t used_ = 0;
    uint64_t offset_ = 0;
    bool ok_ = false;
    int error_ = 0;
};

struct BuildId {
    const unsigned char* bytes = nullptr;
    uint32_t length = 0;
};

// NT_GNU_BUILD_ID from the module's note segments, as the loader mapped them.
BuildId build_id_of(const dl_phdr_info& info) {
    for (int i = 0; i < info.dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info.dlpi_phdr[i];
        if (segment.p_type != PT_NOTE) continue;
        uint64_t align = segment.p_align == 8 ? 8 : 4;
        auto pad = [align](uint64_t n) { return (n + align - 1) & ~(align - 1); };
        auto* note = reinterpret_cast<const unsigned char*>(info.dlpi_addr + segment.p_vaddr);
        const unsigned char* end = note + segment.p_memsz;
        while (static_cast<size_t>(end - note) >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) header;
            memcpy(&header, note, sizeof header);
            const unsigned char* name = note + sizeof header;
            const unsigned char* descriptor = name + pad(header.n_namesz);
            const unsigned char* next = descriptor + pad(header.n_descsz);
            if (descriptor > end || next > end) break;
            if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0)
                return BuildId{descriptor, static_cast<uint32_t>(header.n_descsz)};
            note = next;
        }
    }
    return {};
}

struct ModuleWriting {
    BufferedWriter* out;
    uint32_t count;
};

int write_module(dl_phdr_info* info, size_t, void* context) {
    auto& writing = *static_cast<ModuleWriting*>(context);
    uint64_t start = UINT64_MAX, end = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD) continue;
        uint64_t low = info->dlpi_addr + segment.p_vaddr;
        if (low < start) start = low;
        if (low + segment.p_memsz > end) end = low + segment.p_memsz;
    }
    if (start >= end) return 0;
    // The program itself is listed first, without a name.
    char program[4096];
    const char* path = info->dlpi_name;
    size_t path_length = path != nullptr ? strlen(path) : 0;
    if (path_length == 0) {
        ssize_t n = readlink("/proc/self/exe", program, sizeof program);
        if (n <= 0 || static_cast<size_t>(n) == sizeof program) return 0;
        path = program;
        path_length = static_cast<size_t>(n);
    }
    BuildId id = build_id_of(*info);
    format::ModuleRecord record = {info->dlpi_addr, start, end, id.length,
                                   static_cast<uint32_t>(path_length)};
    writing.out->put(&record, sizeof record);
    writing.out->put(id.bytes, id.length);
    writing.out->put(path, path_length);
    writing.out->pad_to_8();
    ++writing.count;
    return 0;
}

// Calls `write(id, figures)` for each site the file holds, in the file's order: those with
// figures, and `also_without_figures` (the site of the first refused allocation).
template <typename Write>
void for_each_written_site(const StackTable& stacks, const SiteAccounts& accounts,
                           uint32_t also_without_figures, Write write) {
    uint32_t limit = stacks.id_limit();
    if (limit > accounts.capacity()) limit = accounts.capacity();
    for (uint32_t id = StackTable::kTableFull; id < limit; ++id) {
        const SiteFigures& figures = accounts.site(id);
        if (figures.blocks_allocated == 0 && figures.bytes_allocated == 0 && figures.growths == 0 &&
            id != also_without_figures)
            continue;
        write(id, figures);
    }
}

uint32_t write_sites(BufferedWriter& out, const StackTable& stacks, const SiteAccounts& accounts,
                     uint32_t also_without_figures) {
    uint32_t count = 0;
    for_each_written_site(
        stacks, accounts, also_without_figures, [&](uint32_t id, const SiteFigures& figures) {
            uint32_t depth = 0;
            const uintptr_t* frames = stacks.frames_of(id, depth);
            if (depth > format::kMaxDepth) depth = format::kMaxDepth;
            // Freed is written as allocated less what the site holds, each rounded once:
            // sampled figures rounded apart would make a leak of exactly 8 MiB 8 MiB - 1.
            const auto freed = [&](uint64_t allocated, uint64_t kept_freed, int64_t held) {
                if (held < 0) return accounts.in_units(kept_freed);
                uint64_t in_units = accounts.in_units(allocated);
                uint64_t held_units = accounts.in_units(static_cast<uint64_t>(held));
                return in_units > held_units ? in_units - held_units : 0;
            };
            format::SiteRecord record = {
                accounts.in_units(figures.blocks_allocated),
                accounts.in_units(figures.bytes_allocated),
                freed(figures.blocks_allocated, figures.blocks_freed, figures.current_blocks),
                freed(figures.bytes_allocated, figures.bytes_freed, figures.current),
                accounts.in_units(accounts.bytes_at_peak(id)),
                depth,
                id};
            out.put(&record, sizeof record);
            for (uint32_t i = 0; i < depth; ++i) {
                uint64_t frame = frames[i];
                out.put(&frame, sizeof frame);
            }
            ++count;
        });
    return count;
}

// The sites' extra figures, in write_sites' order.
void write_site_extras(BufferedWriter& out, const StackTable& stacks, const SiteAccounts& accounts,
                       uint32_t also_without_figures) {
    for_each_written_site(
        stacks, accounts, also_without_figures, [&](uint32_t id, const SiteFigures& figures) {
            format::SiteExtraRecord record = {accounts.in_units(accounts.blocks_at_peak(id)),
                                              accounts.in_units(figures.temporary_blocks),
                                              accounts.in_units(figures.temporary_bytes)};
            out.put(&record, sizeof record);
        });
}

// Where blocks grew (GrownAtRecord): each pair of a site and a growing stack whose blocks
// were held at the peak or at exit, and sites both written.
void write_grown_at(BufferedWriter& out, const SiteAccounts& accounts) {
    const GrownFigures* pairs = accounts.grown_pairs();
    uint64_t count = 0;
    auto held = [](int64_t value) { return value > 0 ? static_cast<uint64_t>(value) : 0; };
    auto written = [&](const GrownFigures& pair) {
        return pair.site != 0 &&
               (accounts.bytes_at_peak(pair) != 0 || accounts.blocks_at_peak(pair) != 0 ||
                held(pair.current) != 0 || held(pair.current_blocks) != 0);
    };
    for (uint32_t i = 0; pairs != nullptr && i < SiteAccounts::kGrownPairs; ++i)
        count += written(pairs[i]) ? 1 : 0;
    out.put(&count, sizeof count);
    for (uint32_t i = 0; pairs != nullptr && i < SiteAccounts::kGrownPairs; ++i) {
        const GrownFigures& pair = pairs[i];
        if (!written(pair)) continue;
        format::GrownAtRecord record = {pair.site,
                                        pair.grown_at,
                                        accounts.in_units(accounts.bytes_at_peak(pair)),
                                        accounts.in_units(accounts.blocks_at_peak(pair)),
                                        accounts.in_units(held(pair.current)),
                                        accounts.in_units(held(pair.current_blocks))};
        out.put(&record, sizeof record);
    }
}

// The threads' stack peaks (stack_peaks.h), times made nanoseconds since the start.
uint32_t write_stack_peaks(BufferedWriter& out) {
    const stack_peaks::Slot* slots = stack_peaks::slots();
    if (!stack_peaks::enabled || slots == nullptr) return 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < stack_peaks::kSlots; ++i) {
        format::StackPeakRecord record = slots[i].record;
        if (record.bytes == 0) continue;
        if (record.depth > format::kMaxStackPeakDepth) record.depth = format::kMaxStackPeakDepth;
        record.time_ns = stack_peaks::nanoseconds_since_start(record.time_ns);
        uint32_t outer = record.flags >> format::kPeakOuterShift;
        if (outer > format::kMaxStackPeakOuter) {  // torn by a crash's writing
            outer = 0;
            record.flags &= (1u << format::kPeakOuterShift) - 1;
        }
        out.put(&record, sizeof record);
        out.put(slots[i].frames, record.depth * sizeof(format::StackPeakFrame));
        out.put(slots[i].outer, outer * sizeof(format::StackPeakOuterFrame));
        ++count;
    }
    return count;
}

}  // namespace

OpenResult SitesFile::open(const char* path) {
    const OpenResult opened = file_.open(path);
    if (opened != OpenResult::opened) return opened;
    // The file is written at exit with ordinary blocking writes.
    fcntl(file_.fd(), F_SETFL, fcntl(file_.fd(), F_GETFL) & ~O_NONBLOCK);
    return OpenResult::opened;
}

bool SitesFile::write(const StackTable& stacks, const SiteAccounts& accounts, uint32_t flags,
                      uint32_t first_refused_site, const format::StreamBufferRecord* stream_buffers,
                      uint32_t stream_buffer_count) {
    write_error_ = 0;
    if (!file_.still_ours()) {
        write_error_ = ENOENT;  // removed, or replaced by another file of that name
        return false;
    }
    int saved_errno = errno;
    BufferedWriter out(file_.fd());
    format::FileHeader header = {};  // no magic until the rest is in
    out.put(&header, sizeof header);
    ModuleWriting modules = {&out, 0};
    dl_iterate_phdr(write_module, &modules);
    uint32_t site_count = write_sites(out, stacks, accounts, first_refused_site);
    uint32_t stack_peak_count = write_stack_peaks(out);
    write_site_extras(out, stacks, accounts, first_refused_site);
    if (stream_buffer_count > format::kMaxStreamBuffers)
        stream_buffer_count = format::kMaxStreamBuffers;
    uint64_t buffers = stream_buffer_count;
    out.put(&buffers, sizeof buffers);
    if (buffers != 0) out.put(stream_buffers, buffers * sizeof *stream_buffers);
    write_grown_at(out, accounts);
    format::FileTrailer trailer = {};
    memcpy(trailer.magic, format::kTrailerMagic, sizeof trailer.magic);
    trailer.file_bytes = out.position() + sizeof trailer;
    out.put(&trailer, sizeof trailer);
    bool written = out.flush();
    if (written && ftruncate(file_.fd(), static_cast<off_t>(trailer.file_bytes)) != 0) {
        written = false;
        write_error_ = errno;
    }
    if (!written && write_error_ == 0) write_error_ = out.error();
    if (written) {
        memcpy(header.magic, format::kMagic, sizeof header.magic);
        header.version = format::kVersion;
        header.header_bytes = sizeof header;
        header.heap_peak = accounts.heap_peak();
        header.module_count = modules.count;
        header.site_count = site_count;
        header.flags = flags | (stacks.overflowed() ? format::kStackTableFull : 0) |
                       format::kHasSiteExtras | format::kHasStandardStreamBuffers |
                       format::kHasHeapAtExit | format::kHasGrownAt |
                       (accounts.grown_pairs_full() ? format::kGrownAtTableFull : 0) |
                       (kAttachVariant ? format::kSinceAttach : 0);
        header.heap_at_exit = accounts.heap_at_end();
        header.max_depth = format::kMaxDepth;
        header.pid = static_cast<uint64_t>(getpid());
        header.sample_interval = accounts.sample_interval();
        header.first_refused_site = first_refused_site;
        header.stack_peak_count = stack_peak_count;
        header.machine = {machine_format::kByteOrderMark, machine::kElfMachine, machine::kWordBytes,
                          machine::kDataFileTime};
        written = out.write_at(&header, sizeof header, 0);
        if (!written) write_error_ = out.error();
    }
    errno = saved_errno;
    return written;
}

void SitesFile::close() { file_.close(); }

}  // namespace memusage
