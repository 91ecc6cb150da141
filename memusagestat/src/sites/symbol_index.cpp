// SPDX-License-Identifier: MIT
#include "sites/symbol_index.h"

#include <algorithm>

namespace memusagestat {
namespace {

int binding_rank(unsigned char info) {
    switch (GELF_ST_BIND(info)) {
        case STB_GLOBAL:
            return 3;
        case STB_WEAK:
            return 2;
        case STB_LOCAL:
            return 1;
        default:
            return 0;
    }
}

// Return addresses are in code: a symbol of another section (data, an absolute version
// name such as LIBSELINUX_1.0) never names one, as libdw keeps to the address's section.
// The end of a code symbol's section (in the symbol's own addresses), 0 for any other symbol.
uint64_t code_section_end(Elf* elf, GElf_Word section, const GElf_Sym& symbol) {
    if (section == SHN_ABS || section == SHN_COMMON) return 0;
    GElf_Shdr header;
    Elf_Scn* scn = elf != nullptr && section < SHN_LORESERVE ? elf_getscn(elf, section) : nullptr;
    if (scn == nullptr || gelf_getshdr(scn, &header) == nullptr) return UINT64_MAX;
    if ((header.sh_flags & SHF_EXECINSTR) == 0) return 0;
    return header.sh_addr + header.sh_size - symbol.st_value;  // past the symbol's value
}

}  // namespace

SymbolIndex::SymbolIndex(Dwfl_Module* module) {
    int count = dwfl_module_getsymtab(module);
    for (int i = 1; i < count; ++i) {
        GElf_Sym symbol;
        GElf_Addr address = 0;
        GElf_Word section = 0;
        Elf* elf = nullptr;
        const char* name =
            dwfl_module_getsym_info(module, i, &symbol, &address, &section, &elf, nullptr);
        if (name == nullptr || name[0] == '\0' || section == SHN_UNDEF) continue;
        int type = GELF_ST_TYPE(symbol.st_info);
        if (type == STT_SECTION || type == STT_FILE || type == STT_TLS) continue;
        uint64_t after_value = code_section_end(elf, section, symbol);
        if (after_value == 0) continue;
        uint64_t section_end = after_value == UINT64_MAX ? UINT64_MAX : address + after_value;
        symbols_.push_back(
            {address, symbol.st_size, section_end, name, binding_rank(symbol.st_info)});
    }
    std::stable_sort(symbols_.begin(), symbols_.end(),
                     [](const Symbol& a, const Symbol& b) { return a.start < b.start; });
    reach_.reserve(symbols_.size());
    uint64_t reach = 0;
    for (const Symbol& symbol : symbols_) {
        if (symbol.size != 0) reach = std::max(reach, symbol.start + symbol.size);
        reach_.push_back(reach);
    }
}

const char* SymbolIndex::name_of(uint64_t address) const {
    const size_t end =
        static_cast<size_t>(std::upper_bound(symbols_.begin(), symbols_.end(), address,
                                             [](uint64_t value, const Symbol& symbol) {
                                                 return value < symbol.start;
                                             }) -
                            symbols_.begin());
    if (end == 0) return nullptr;
    // A sized symbol that holds the address: the nearest start, then the best binding, then
    // the first in the table (backwards, a tie replaces).
    const Symbol* best = nullptr;
    for (size_t i = end; i-- > 0 && reach_[i] > address;) {
        const Symbol& symbol = symbols_[i];
        if (best != nullptr && symbol.start < best->start) break;
        if (symbol.size != 0 && address - symbol.start < symbol.size &&
            (best == nullptr || symbol.binding >= best->binding))
            best = &symbol;
    }
    if (best != nullptr) return best->name;
    // Else the nearest label, unless a sized symbol ends between it and the address (then
    // the address is in code no symbol describes).
    const uint64_t after_sized = reach_[end - 1];
    for (size_t i = end; i-- > 0 && symbols_[i].start >= after_sized;) {
        const Symbol& symbol = symbols_[i];
        if (best != nullptr && symbol.start < best->start) break;
        if (symbol.size == 0 && (best == nullptr || symbol.binding >= best->binding))
            best = &symbol;
    }
    // A label names only addresses of its own section.
    return best != nullptr && address < best->section_end ? best->name : nullptr;
}

}  // namespace memusagestat
