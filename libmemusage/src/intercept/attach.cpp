// SPDX-License-Identifier: MIT
// The attached collector (libmemusage-attach.so): loaded into a process already running
// (memusage --attach), it is started by memusage_attach, takes over the allocation functions
// of every module by their offset-table entries (got_patch.h), counts the blocks handed out
// since then without a header (their sizes and sites in an AddressTable), and gives every
// entry back on memusage_detach. A block allocated before the attach is not in the table: its
// free and its resize go to the C library uncounted.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "heap/address_table.h"
#include "intercept/collector.h"
#include "intercept/got_patch.h"
#include "platform/originals.h"

#define MEMUSAGE_EXPORT extern "C" __attribute__((visibility("default")))

using namespace memusage;
using collector::CountingScope;

namespace {

// 2^23 blocks live at once at most (192 MiB reserved, touched as used).
constexpr size_t kTableSlots = size_t{1} << 23;
constinit AddressTable table;

// The settings, "NAME=VALUE" lines, copied into our own memory, each line ended by a null
// and the last by two.
constexpr size_t kSettingsBytes = 16384;
char settings[kSettingsBytes];

const char* setting(const char* name) {
    const size_t length = strlen(name);
    for (const char* line = settings; *line != '\0'; line += strlen(line) + 1)
        if (strncmp(line, name, length) == 0 && line[length] == '=') return line + length + 1;
    return nullptr;
}

bool keep_settings(const char* options) {
    const size_t length = strlen(options);
    if (length + 2 > kSettingsBytes) return false;
    memcpy(settings, options, length);
    settings[length] = settings[length + 1] = '\0';
    for (size_t i = 0; i < length; ++i)
        if (settings[i] == '\n') settings[i] = '\0';
    return true;
}

// The dynamic linker's code. Its own allocations (a thread's first use of a library's
// thread-local storage among them) may come through the program's entries, when the program
// names malloc by its address: ours would then touch our own thread-local storage, whose
// allocation is that very call. They go to the C library, uncounted, before anything else.
uintptr_t linker_begin = 0;
uintptr_t linker_end = 0;

__attribute__((always_inline)) inline bool from_linker(void* return_address) {
    const auto address = reinterpret_cast<uintptr_t>(return_address);
    return address - linker_begin < linker_end - linker_begin;
}
#define MEMUSAGE_CALLER __builtin_return_address(0)

int find_linker(dl_phdr_info* info, size_t, void*) {
    const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
    if (strstr(name, "/ld-linux") == nullptr && strstr(name, "/ld-") == nullptr) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& header = info->dlpi_phdr[i];
        if (header.p_type != PT_LOAD || (header.p_flags & PF_X) == 0) continue;
        linker_begin = info->dlpi_addr + header.p_vaddr;
        linker_end = linker_begin + header.p_memsz;
        return 1;
    }
    return 0;
}

// The block `block` of `size` bytes at site `site` (0: none), handed out by the real function:
// counted, or (no room left in the table) not, so that its free is not counted either.
void* counted_block(Counting* counting, Call call, uint64_t size, uint32_t site, void* block) {
    if (block == nullptr) {
        counting->admission_unused(size);
        counting->failed(call);
    } else if (table.insert(block, {size, site, 0})) {
        counting->allocated(size, block);
    } else {
        counting->admission_unused(size);
    }
    return block;
}

void* attached_malloc(size_t size) {
    if (from_linker(MEMUSAGE_CALLER)) return original::malloc(size);
    CountingScope scope;
    Counting* counting = scope.counting();
    if (counting == nullptr) return original::malloc(size);
    counting->allocation_requested(Call::malloc, size);
    if (!counting->admit(Call::malloc, size)) return nullptr;
    // The calling stack, taken before the real allocator's lock.
    const uint32_t site = counting->site(size);
    return counted_block(counting, Call::malloc, size, site, original::malloc(size));
}

void* attached_calloc(size_t count, size_t size) {
    if (from_linker(MEMUSAGE_CALLER)) return original::calloc(count, size);
    CountingScope scope;
    Counting* counting = scope.counting();
    if (counting == nullptr) return original::calloc(count, size);
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        counting->impossible_request(Call::calloc);
        errno = ENOMEM;
        return nullptr;
    }
    counting->allocation_requested(Call::calloc, bytes);
    if (!counting->admit(Call::calloc, bytes)) return nullptr;
    const uint32_t site = counting->site(bytes);
    return counted_block(counting, Call::calloc, bytes, site, original::calloc(count, size));
}

void attached_free(void* block) {
    if (from_linker(MEMUSAGE_CALLER)) return original::free(block);
    CountingScope scope;
    Counting* counting = scope.counting();
    AddressTable::Block held;
    if (block == nullptr) {
        if (counting != nullptr) counting->free_null();
    } else if (table.remove(block, held) && counting != nullptr) {
        // Removed before the real free: the address may be handed out again at once.
        if (held.grown_at != 0) counting->regrown(held.site, held.grown_at, held.size, 0, 0, 0);
        counting->keep_site(held.site);  // freed at the site that allocated it
        counting->freed(held.size, block);
    }
    original::free(block);
}

// A resize of a counted block `old` (at `block`): its entry has left the table before the
// real realloc (which may free it), and comes back if that fails. As tracked_heap.h's
// reallocate: the block keeps its site, and where it grows is the realloc's stack.
void* resized(Counting* counting, void* block, const AddressTable::Block& old, size_t size) {
    counting->keep_site(old.site);
    if (size == 0) {
        counting->realloc_call();
        counting->regrown(old.site, old.grown_at, old.size, 0, 0, 0);
        counting->realloc_freed(old.size, block);
        return original::realloc(block, 0);
    }
    counting->resize_requested(Call::realloc, old.size, size);
    const uint64_t growth = size > old.size ? size - old.size : 0;
    if (!counting->admit(Call::realloc, growth)) {
        table.insert(block, old);
        return nullptr;
    }
    const uint32_t tag = counting->resized_site(old.site, old.size, size);
    const uint32_t grown_at = counting->grown_at(old.site, old.grown_at, old.size, size);
    void* result = original::realloc(block, size);
    if (result == nullptr) {
        table.insert(block, old);
        counting->admission_unused(growth);
        counting->failed(Call::realloc);
    } else if (table.insert(result, {size, tag, tag != 0 ? grown_at : 0})) {
        counting->reweighed(old.site, tag, old.size);
        counting->regrown(old.site, old.grown_at, old.size, tag, grown_at, size);
        counting->keep_site(tag);
        counting->reallocated(old.size, size, result != block, block, result);
    } else {
        counting->regrown(old.site, old.grown_at, old.size, 0, 0, 0);
        counting->realloc_freed(old.size, block);
    }
    return result;
}

void* attached_realloc(void* block, size_t size) {
    if (from_linker(MEMUSAGE_CALLER)) return original::realloc(block, size);
    CountingScope scope;
    Counting* counting = scope.counting();
    AddressTable::Block old;
    if (counting == nullptr || (block != nullptr && !table.remove(block, old)))
        return original::realloc(block, size);  // not counting, or a block from before
    if (block != nullptr) return resized(counting, block, old, size);
    counting->resize_requested(Call::realloc, 0, size);
    if (!counting->admit(Call::realloc, size)) return nullptr;
    const uint32_t site = counting->site(size);
    void* fresh = original::realloc(nullptr, size);
    if (fresh == nullptr) {
        counting->admission_unused(size);
        counting->failed(Call::realloc);
    } else if (table.insert(fresh, {size, site, 0})) {
        counting->reallocated(0, size, true, nullptr, fresh);
    }
    return fresh;
}

void* attached_reallocarray(void* block, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return nullptr;
    }
    return attached_realloc(block, bytes);
}

// memalign, aligned_alloc, valloc, pvalloc: `allocate` is the real call.
template <typename Allocate>
void* aligned(size_t size, Allocate allocate) {
    CountingScope scope;
    Counting* counting = scope.counting();
    if (counting == nullptr) return allocate();
    counting->allocation_requested(Call::aligned, size);
    if (!counting->admit(Call::aligned, size)) return nullptr;
    const uint32_t site = counting->site(size);
    return counted_block(counting, Call::aligned, size, site, allocate());
}

void* attached_memalign(size_t alignment, size_t size) {
    if (from_linker(MEMUSAGE_CALLER)) return original::memalign(alignment, size);
    return aligned(size, [&] { return original::memalign(alignment, size); });
}
void* attached_aligned_alloc(size_t alignment, size_t size) {
    return aligned(size, [&] { return original::aligned_alloc(alignment, size); });
}
void* attached_valloc(size_t size) {
    return aligned(size, [&] { return original::valloc(size); });
}
void* attached_pvalloc(size_t size) {
    const auto page = static_cast<size_t>(getpagesize());
    size_t rounded = size;
    if (!__builtin_add_overflow(size, page - 1, &rounded)) rounded &= ~(page - 1);
    return aligned(rounded, [&] { return original::pvalloc(size); });
}
int attached_posix_memalign(void** result, size_t alignment, size_t size) {
    int error = 0;
    void* block = aligned(size, [&]() -> void* {
        void* made = nullptr;
        error = original::posix_memalign(&made, alignment, size);
        return error == 0 ? made : nullptr;
    });
    if (block == nullptr) return error != 0 ? error : ENOMEM;
    *result = block;
    return 0;
}

void* attached_dlopen(const char* file, int mode);

const got_patch::Replacement kReplacements[] = {
    {"malloc", reinterpret_cast<void*>(attached_malloc)},
    {"calloc", reinterpret_cast<void*>(attached_calloc)},
    {"realloc", reinterpret_cast<void*>(attached_realloc)},
    {"reallocarray", reinterpret_cast<void*>(attached_reallocarray)},
    {"free", reinterpret_cast<void*>(attached_free)},
    {"cfree", reinterpret_cast<void*>(attached_free)},
    {"memalign", reinterpret_cast<void*>(attached_memalign)},
    {"aligned_alloc", reinterpret_cast<void*>(attached_aligned_alloc)},
    {"posix_memalign", reinterpret_cast<void*>(attached_posix_memalign)},
    {"valloc", reinterpret_cast<void*>(attached_valloc)},
    {"pvalloc", reinterpret_cast<void*>(attached_pvalloc)},
    {"dlopen", reinterpret_cast<void*>(attached_dlopen)},
};
constexpr size_t kReplacementCount = sizeof kReplacements / sizeof kReplacements[0];

std::atomic<bool> attached{false};
decltype(&dlopen) real_dlopen = nullptr;

// A module loaded while attached has its entries patched too.
void* attached_dlopen(const char* file, int mode) {
    void* handle = real_dlopen(file, mode);
    if (handle != nullptr && attached.load(std::memory_order_acquire))
        got_patch::patch_modules(kReplacements, kReplacementCount);
    return handle;
}

// The first lines of the report: what the figures count from.
void write_attach_note(int fd) {
    const struct mallinfo2 heap = mallinfo2();
    const time_t now = time(nullptr);
    struct tm local;
    localtime_r(&now, &local);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
    char line[256];
    const int length = snprintf(line, sizeof line,
                                "memusage: attached to process %ld at %s: the figures are "
                                "since attach; heap in use at attach: %zu bytes (mallinfo2)\n",
                                static_cast<long>(getpid()), when, heap.uordblks + heap.hblkhd);
    if (length > 0) collector::print_summary_line(line, static_cast<size_t>(length), fd);
}

}  // namespace

// The driver calls these in the stopped process (memusage/src/attach/). `options`: the
// collector's MEMUSAGE_* settings, one "NAME=VALUE" a line, MEMUSAGE_ATTACH_REPORT naming
// the file the summary goes to. 0 when attached; else a negative errno-like code.
MEMUSAGE_EXPORT int memusage_attach(const char* options) {
    if (attached.load(std::memory_order_acquire)) return -EALREADY;
    if (!keep_settings(options)) return -E2BIG;
    const char* report = setting("MEMUSAGE_ATTACH_REPORT");
    if (report == nullptr) return -EINVAL;
    const int fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -errno;
    if (!table.is_open() && !table.open(kTableSlots)) return -ENOMEM;
    real_dlopen = reinterpret_cast<decltype(&dlopen)>(dlsym(RTLD_NEXT, "dlopen"));
    dl_iterate_phdr(find_linker, nullptr);
    if (real_dlopen == nullptr) return -ENOSYS;
    write_attach_note(fd);
    if (collector::initialize_from(setting, fd) != collector::State::active) return -EINVAL;
    collector::start_publishing();
    attached.store(true, std::memory_order_release);
    if (const char* problem = got_patch::patch_modules(kReplacements, kReplacementCount)) {
        collector::print_summary_line(problem, strlen(problem), fd);
        got_patch::restore_modules();
        return -EPERM;
    }
    return 0;
}

// Every entry given back, then the run ended as at exit (the files written, the summary
// printed to the report). The collector stays loaded: a call in progress may still return
// through it, and the blocks it counted are the C library's own.
MEMUSAGE_EXPORT int memusage_detach() {
    if (!attached.exchange(false)) return -ENOENT;
    got_patch::restore_modules();
    collector::finish();
    return 0;
}
