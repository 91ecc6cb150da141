// SPDX-License-Identifier: MIT
// The functions an ELF file defines (its .dynsym and .symtab), with their addresses relative
// to the file's load bias and their sizes: attaching calls dlopen and the collector's entry
// points by them, and tells from them whether a stopped thread is inside the allocator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "memusage/status.h"

namespace memusage::attach {

struct FunctionSymbol {
    uint64_t address;  // relative to the load bias
    uint64_t size;
};

struct ElfFacts {
    std::unordered_map<std::string, FunctionSymbol> functions;
    bool has_interpreter = false;  // PT_INTERP: dynamically linked
};

// Failing (not a 64-bit ELF file, unreadable), the message.
Result<ElfFacts> read_elf(const std::string& path);

}  // namespace memusage::attach
