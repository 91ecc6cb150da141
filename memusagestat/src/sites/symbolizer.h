// SPDX-License-Identifier: MIT
// Return addresses of a past run turned into functions and file:line, with elfutils' libdw:
// the modules listed in the sites file are reported to one Dwfl at the addresses they had,
// after their build-ids are checked against the files on disk now. Inlined calls come out
// as frames of their own. Results are cached per address.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "read/sites_reader.h"

namespace memusagestat {

// One function's part of a return address: several when calls were inlined there.
struct SourceFrame {
    std::string function;  // demangled; empty when there is no symbol
    std::string file;      // empty without line information
    int line = 0;
    // The compile directory of the file's unit, as the debug information gives it (empty
    // when it gives none): where a moved tree's files are looked for (--source-dir).
    std::string comp_dir;
    // The first line of the frame's function (its declaration's), 0 when not known: a
    // call's line less it stays when lines are added elsewhere (definitions.h).
    int function_line = 0;
    bool inlined = false;  // inlined into the frame after it
    std::string module;    // the module's path, or empty when the address is in none
    uint64_t offset = 0;   // the address as an ELF virtual address of the module
    bool runtime = false;  // in the C or C++ runtime, the loader or GLib (libc.so.6, ld-linux...)
};

// A symbol's name as a reader knows it: a C++ name mangled by the Itanium ABI (_Z...)
// demangled; any other name as it is, although __cxa_demangle would read "i" or "St3foo"
// as a type (int, std::foo). Empty for none.
std::string demangled_name(const char* name);

class Symbolizer {
  public:
    explicit Symbolizer(const std::vector<SitesModule>& modules);
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    // The frames of one return address, innermost first (the inlined ones, then the
    // function that holds the address).
    const std::vector<SourceFrame>& frames_of(uint64_t return_address);

    // Modules that frames fell in but that could not be read: missing, changed since the
    // run, or unreadable. One line each, in the order they were first met.
    const std::vector<std::string>& notes() const { return notes_; }

    // Gives back what libdw holds of the modules' files (their debug sections, decompressed:
    // about 10 MB for python3) and keeps the frames met so far: for the steps that replay a
    // recording after every site is named. A frame not met yet opens its module again.
    void close_files();

  private:
    struct State;
    struct ModuleState;

    std::vector<SourceFrame> symbolize(uint64_t return_address);
    ModuleState* module_of(uint64_t address);
    bool build_id_matches(const ModuleState& module);

    std::unique_ptr<State> state_;
    std::unordered_map<uint64_t, std::vector<SourceFrame>> cache_;
    std::vector<std::string> notes_;
};

}  // namespace memusagestat
