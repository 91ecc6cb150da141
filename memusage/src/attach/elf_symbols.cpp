// SPDX-License-Identifier: MIT
#include "attach/elf_symbols.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace memusage::attach {
namespace {

template <typename T>
bool read_at(const std::vector<char>& bytes, uint64_t offset, T& out) {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
    memcpy(&out, bytes.data() + offset, sizeof(T));
    return true;
}

void add_symbols(const std::vector<char>& bytes, const Elf64_Shdr& table, const Elf64_Shdr& strings,
                 ElfFacts& facts) {
    if (table.sh_entsize != sizeof(Elf64_Sym)) return;
    const uint64_t count = table.sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 0; i < count; ++i) {
        Elf64_Sym symbol;
        if (!read_at(bytes, table.sh_offset + i * sizeof(Elf64_Sym), symbol)) return;
        if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0) continue;
        const uint64_t name_at = strings.sh_offset + symbol.st_name;
        if (name_at >= bytes.size()) continue;
        const char* name = bytes.data() + name_at;
        const size_t length = strnlen(name, bytes.size() - name_at);
        facts.functions.emplace(std::string(name, length),
                                FunctionSymbol{symbol.st_value, symbol.st_size});
    }
}

}  // namespace

Result<ElfFacts> read_elf(const std::string& path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) return Failure{"cannot read " + path};
    std::vector<char> bytes(static_cast<size_t>(file.tellg()));
    file.seekg(0);
    if (!file.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
        return Failure{"cannot read " + path};
    Elf64_Ehdr header;
    if (!read_at(bytes, 0, header) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64)
        return Failure{path + " is no 64-bit ELF file"};
    ElfFacts facts;
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr program;
        if (read_at(bytes, header.e_phoff + uint64_t{i} * header.e_phentsize, program) &&
            program.p_type == PT_INTERP)
            facts.has_interpreter = true;
    }
    std::vector<Elf64_Shdr> sections(header.e_shnum);
    for (unsigned i = 0; i < header.e_shnum; ++i)
        if (!read_at(bytes, header.e_shoff + uint64_t{i} * header.e_shentsize, sections[i]))
            return Failure{path + ": its section headers are cut short"};
    for (const Elf64_Shdr& section : sections)
        if ((section.sh_type == SHT_DYNSYM || section.sh_type == SHT_SYMTAB) &&
            section.sh_link < sections.size())
            add_symbols(bytes, section, sections[section.sh_link], facts);
    return facts;
}

}  // namespace memusage::attach
