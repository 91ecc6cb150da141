// SPDX-License-Identifier: MIT
// Which frames of a stack belong to code that allocates on the program's behalf (operator
// new, the C++ standard library, the C runtime, GLib), and how the call the program made
// into such code is named in the report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sites/symbolizer.h"

namespace memusagestat {

// A frame of code that allocates for its caller: the site is the caller.
bool is_wrapper(const SourceFrame& frame);

// The C library's code that starts a program or a thread: the stack shown ends before it.
bool is_below_main(const SourceFrame& frame);

// The part of a symbolised stack (innermost first) that reports and pictures show: from the
// program's innermost frame that is not a wrapper out to main (or to the code that started
// the thread), less the wrappers a thread's entry goes through. A stack of nothing but
// wrappers is shown whole. `via` is the outermost wrapper the allocation went through.
struct ShownFrames {
    size_t first = 0, end = 0;         // frames[first, end)
    const SourceFrame* via = nullptr;  // null when the program allocated directly
};
ShownFrames shown_frames(const std::vector<SourceFrame>& frames);

// The demangled name of a function template starts with its return type:
// "void std::vector<int>::_M_realloc_insert<int>(...)". This is the name after it.
std::string_view without_return_type(std::string_view name);

// A function's name without return type, template arguments, parameters or libstdc++'s
// inline namespace: "std::vector::push_back", "operator new".
std::string short_name(std::string_view name);

// A function's name as pictures and exports show it: without return type or parameters,
// with its template arguments (build<40> and build<100> are two functions), libstdc++'s
// std::basic_string<char, ...> written std::string.
std::string display_name(std::string_view name);

// The name a symbol table gives a function, as users know it: GCC's clones of a function
// (".isra.0", ".constprop.1", ".part.0", ".cold", or " [clone .isra.0]" demangled) are the
// function; in the C library (`in_libc`), the internal names its public functions are
// aliases of or tail-call are the public ones.
std::string public_name(std::string name, bool in_libc);

}  // namespace memusagestat
