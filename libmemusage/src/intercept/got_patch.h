// SPDX-License-Identifier: MIT
// An attached collector takes over the allocation functions of a process already running by
// rewriting the entries of each loaded module's global offset table that lead to them (the
// JUMP_SLOT and GLOB_DAT relocations of its dynamic section), and puts them back on detach.
// The collector's own module, the C library and the dynamic linker are left alone. x86_64
// only for now: elsewhere nothing is patched and patch_modules() says so.
#pragma once

#include <cstddef>

namespace memusage::got_patch {

struct Replacement {
    const char* name;  // the symbol a module imports
    void* ours;        // what its entry leads to while attached
};

// Every loaded module's entries for `replacements`, pointed at ours (entries already ours are
// left as they are: a module loaded since the last call is patched, the others unchanged).
// Null, or what went wrong.
const char* patch_modules(const Replacement* replacements, size_t count);
// Every entry patched, as it was before.
void restore_modules();
// How many entries are patched now.
size_t patched_entries();

}  // namespace memusage::got_patch
