// SPDX-License-Identifier: MIT
// memusagestat's sorted symbol index names every address as libdw's linear
// dwfl_module_addrinfo does (which it replaces: a report on node took 9 s in it), on real
// modules: this test, the C library (a dynamic symbol table only, with absolute version
// symbols such as GLIBC_2.2.5 that must name nothing) and the C++ library.
#include "sites/symbol_index.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace memusagestat {
namespace {

char* debuginfo_path = nullptr;
const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

std::string path_of(const void* code) {
    Dl_info info;
    if (dladdr(code, &info) == 0 || info.dli_fname == nullptr) return {};
    return info.dli_fname;
}

std::string text_of(const char* name) { return name != nullptr ? name : "(none)"; }

// Every symbol's start, second byte, middle and end, and an address every few hundred
// bytes of the module (gaps, code before the first symbol, labels), through both.
void expect_same_names(const std::string& path) {
    ASSERT_FALSE(path.empty());
    Dwfl* dwfl = dwfl_begin(&kCallbacks);
    ASSERT_NE(dwfl, nullptr);
    dwfl_report_begin(dwfl);
    Dwfl_Module* module = dwfl_report_elf(dwfl, path.c_str(), path.c_str(), -1, 0x100000, false);
    dwfl_report_end(dwfl, nullptr, nullptr);
    ASSERT_NE(module, nullptr) << path;
    Dwarf_Addr low = 0, high = 0;
    dwfl_module_info(module, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr);
    // Return addresses are in code: the index knows only the symbols of code sections.
    std::vector<std::pair<uint64_t, uint64_t>> code;
    GElf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(module, &bias);
    ASSERT_NE(elf, nullptr);
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr header;
        if (gelf_getshdr(scn, &header) != nullptr && (header.sh_flags & SHF_EXECINSTR) != 0)
            code.emplace_back(header.sh_addr + bias, header.sh_addr + bias + header.sh_size);
    }
    ASSERT_FALSE(code.empty());
    const auto in_code = [&](uint64_t address) {
        for (const auto& [start, end] : code)
            if (address >= start && address < end) return true;
        return false;
    };

    std::vector<uint64_t> addresses;
    int count = dwfl_module_getsymtab(module);
    ASSERT_GT(count, 100) << path;
    const int every = count / 1500 + 1;  // libdw's lookups are slow: a sample of the symbols
    for (int i = 1; i < count; i += every) {
        GElf_Sym symbol;
        GElf_Addr address = 0;
        if (dwfl_module_getsym_info(module, i, &symbol, &address, nullptr, nullptr, nullptr) ==
            nullptr)
            continue;
        for (uint64_t offset : {uint64_t{0}, uint64_t{1}, symbol.st_size / 2, symbol.st_size})
            if (in_code(address + offset)) addresses.push_back(address + offset);
    }
    const uint64_t step = (high - low) / 3000 + 1;
    for (uint64_t address = low; address < high; address += step)
        if (in_code(address)) addresses.push_back(address);

    SymbolIndex index(module);
    size_t differences = 0;
    for (uint64_t address : addresses) {
        GElf_Off offset = 0;
        GElf_Sym symbol;
        const char* theirs =
            dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr);
        const char* ours = index.name_of(address);
        if (text_of(theirs) != text_of(ours) && ++differences <= 10)
            ADD_FAILURE() << path << " +0x" << std::hex << address - 0x100000 << ": libdw says "
                          << text_of(theirs) << ", the index " << text_of(ours);
    }
    EXPECT_EQ(differences, 0u) << "of " << addresses.size() << " addresses in " << path;
    dwfl_end(dwfl);
}

TEST(SymbolIndex, NamesAddressesAsLibdwDoesInThisProgram) {
    expect_same_names(path_of(reinterpret_cast<const void*>(&expect_same_names)));
}

TEST(SymbolIndex, NamesAddressesAsLibdwDoesInTheCLibrary) {
    expect_same_names(path_of(reinterpret_cast<const void*>(&std::malloc)));
}

TEST(SymbolIndex, NamesAddressesAsLibdwDoesInTheCxxLibrary) {
    expect_same_names(path_of(reinterpret_cast<const void*>(&std::get_new_handler)));
}

}  // namespace
}  // namespace memusagestat
