// SPDX-License-Identifier: MIT
#include "intercept/got_patch.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace memusage::got_patch {
namespace {

struct PatchedEntry {
    void** slot;
    void* previous;
    bool read_only;  // under RELRO: made writable for each write
};
// Entries patched, in the collector's own memory: a process has a few per module.
constexpr size_t kMaxEntries = 8192;
PatchedEntry entries[kMaxEntries];
size_t entry_count = 0;

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr uint32_t kGlobalData = R_X86_64_GLOB_DAT;
constexpr bool kSupported = true;
#else
constexpr uint32_t kJumpSlot = 0;
constexpr uint32_t kGlobalData = 0;
constexpr bool kSupported = false;
#endif

// A relocation's type and symbol, as this machine's ELF class packs them.
#if __SIZEOF_POINTER__ == 8
uint32_t relocation_type(uint64_t info) { return static_cast<uint32_t>(ELF64_R_TYPE(info)); }
size_t relocation_symbol(uint64_t info) { return ELF64_R_SYM(info); }
#else
uint32_t relocation_type(uint32_t info) { return ELF32_R_TYPE(info); }
size_t relocation_symbol(uint32_t info) { return ELF32_R_SYM(info); }
#endif

struct Walk {
    const Replacement* replacements;
    size_t count;
    uintptr_t own_base;
    const char* problem;
};

// What a module's dynamic section says, its addresses made absolute (the dynamic linker
// relocates them in place on most machines; the vDSO's are offsets).
struct DynamicTables {
    const ElfW(Sym) * symbols = nullptr;
    const char* strings = nullptr;
    const ElfW(Rela) * relocations[2] = {nullptr, nullptr};
    size_t relocation_bytes[2] = {0, 0};
};

uintptr_t absolute(uintptr_t base, uintptr_t value) { return value < base ? base + value : value; }

DynamicTables tables_of(uintptr_t base, const ElfW(Dyn) * dynamic) {
    DynamicTables tables;
    bool rela_plt = true;
    for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
        const uintptr_t value = entry->d_un.d_ptr;
        switch (entry->d_tag) {
            case DT_SYMTAB:
                tables.symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(base, value));
                break;
            case DT_STRTAB:
                tables.strings = reinterpret_cast<const char*>(absolute(base, value));
                break;
            case DT_JMPREL:
                tables.relocations[0] = reinterpret_cast<const ElfW(Rela)*>(absolute(base, value));
                break;
            case DT_PLTRELSZ:
                tables.relocation_bytes[0] = entry->d_un.d_val;
                break;
            case DT_PLTREL:
                rela_plt = entry->d_un.d_val == DT_RELA;
                break;
            case DT_RELA:
                tables.relocations[1] = reinterpret_cast<const ElfW(Rela)*>(absolute(base, value));
                break;
            case DT_RELASZ:
                tables.relocation_bytes[1] = entry->d_un.d_val;
                break;
            default:
                break;
        }
    }
    if (!rela_plt) tables.relocations[0] = nullptr;
    return tables;
}

const Replacement* replacement_for(const Walk& walk, const char* name) {
    for (size_t i = 0; i < walk.count; ++i)
        if (strcmp(walk.replacements[i].name, name) == 0) return &walk.replacements[i];
    return nullptr;
}

// Writes `value` into `slot`, making its page writable for the write when it is read-only
// (an entry under RELRO).
bool write_slot(void** slot, void* value, bool read_only) {
    const auto page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    auto* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~(page_size - 1));
    if (read_only && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return false;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (read_only) mprotect(page, page_size, PROT_READ);
    return true;
}

struct Relro {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    bool holds(uintptr_t address) const { return address >= begin && address < end; }
};

void patch_table(Walk& walk, uintptr_t base, const DynamicTables& tables, int which,
                 const Relro& relro) {
    const ElfW(Rela)* relocation = tables.relocations[which];
    if (relocation == nullptr) return;
    const size_t count = tables.relocation_bytes[which] / sizeof(ElfW(Rela));
    for (size_t i = 0; i < count; ++i, ++relocation) {
        const auto type = relocation_type(relocation->r_info);
        if (type != kJumpSlot && type != kGlobalData) continue;
        const ElfW(Sym)& symbol = tables.symbols[relocation_symbol(relocation->r_info)];
        const Replacement* replacement = replacement_for(walk, tables.strings + symbol.st_name);
        if (replacement == nullptr) continue;
        auto** slot = reinterpret_cast<void**>(base + relocation->r_offset);
        void* previous = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (previous == replacement->ours) continue;
        if (entry_count == kMaxEntries) {
            walk.problem = "too many entries to patch";
            return;
        }
        const bool read_only = relro.holds(reinterpret_cast<uintptr_t>(slot));
        entries[entry_count] = {slot, previous, read_only};
        if (!write_slot(slot, replacement->ours, read_only)) {
            walk.problem = "cannot make a module's offset table writable";
            return;
        }
        ++entry_count;
    }
}

bool left_alone(const dl_phdr_info* info, const Walk& walk) {
    if (info->dlpi_addr == walk.own_base) return true;
    const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
    const char* file = strrchr(name, '/');
    file = file != nullptr ? file + 1 : name;
    return strncmp(file, "libc.so", 7) == 0 || strncmp(file, "ld-linux", 8) == 0 ||
           strncmp(file, "linux-vdso", 10) == 0 || strncmp(file, "linux-gate", 10) == 0;
}

int patch_module(dl_phdr_info* info, size_t, void* data) {
    auto& walk = *static_cast<Walk*>(data);
    if (walk.problem != nullptr || left_alone(info, walk)) return 0;
    const ElfW(Dyn)* dynamic = nullptr;
    Relro relro;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& header = info->dlpi_phdr[i];
        if (header.p_type == PT_DYNAMIC)
            dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + header.p_vaddr);
        if (header.p_type == PT_GNU_RELRO)
            relro = {info->dlpi_addr + header.p_vaddr,
                     info->dlpi_addr + header.p_vaddr + header.p_memsz};
    }
    if (dynamic == nullptr) return 0;
    const DynamicTables tables = tables_of(info->dlpi_addr, dynamic);
    if (tables.symbols == nullptr || tables.strings == nullptr) return 0;
    for (int which = 0; which < 2; ++which)
        patch_table(walk, info->dlpi_addr, tables, which, relro);
    return 0;
}

uintptr_t own_base() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&own_base), &info) == 0) return 0;
    link_map* map = nullptr;
    if (dladdr1(reinterpret_cast<void*>(&own_base), &info, reinterpret_cast<void**>(&map),
                RTLD_DL_LINKMAP) == 0 ||
        map == nullptr)
        return 0;
    return map->l_addr;
}

}  // namespace

const char* patch_modules(const Replacement* replacements, size_t count) {
    if (!kSupported) return "taking over the allocation functions is not done on this machine";
    Walk walk{replacements, count, own_base(), nullptr};
    dl_iterate_phdr(patch_module, &walk);
    return walk.problem;
}

void restore_modules() {
    // The last patched first: an entry patched twice gets its first value back.
    while (entry_count > 0) {
        --entry_count;
        const PatchedEntry& entry = entries[entry_count];
        write_slot(entry.slot, entry.previous, entry.read_only);
    }
}

size_t patched_entries() { return entry_count; }

}  // namespace memusage::got_patch
