// SPDX-License-Identifier: MIT
// A module's symbol table sorted by address, for finding the function that holds an address
// in O(log n). libdw's dwfl_module_addrinfo scans the whole table on every call: with
// node's 150,000 symbols that was 1.6 ms an address, 9 s for one sites report.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <vector>

namespace memusagestat {

class SymbolIndex {
  public:
    // Reads the module's symbols (its symbol table, or the dynamic one, as libdw finds them).
    explicit SymbolIndex(Dwfl_Module* module);

    // The name of the symbol that holds `address` (a run-time address), as
    // dwfl_module_addrinfo names it: the function whose extent holds it, the nearest start
    // among several, the global one among aliases; else the nearest label without a size
    // with no sized symbol between. Null when there is none.
    const char* name_of(uint64_t address) const;

  private:
    struct Symbol {
        uint64_t start;
        uint64_t size;         // 0: a label without a size
        uint64_t section_end;  // where its section ends
        const char* name;
        int binding;  // higher is better: global, weak, local
    };
    std::vector<Symbol> symbols_;  // by start
    // The furthest end of the sized symbols at or before each index: where a backwards scan
    // for a symbol holding an address may stop.
    std::vector<uint64_t> reach_;
};

}  // namespace memusagestat
