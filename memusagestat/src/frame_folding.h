// Which frames of a stack belong to code that allocates on the program's behalf (operator
// new, the C++ standard library, the C runtime, GLib), and how the call the program made
// into such code is named in the report.
#pragma once

#include <string>
#include <string_view>

#include "symbolizer.h"

namespace memusagestat {

// A frame of code that allocates for its caller: the site is the caller.
bool is_wrapper(const SourceFrame& frame);

// The C library's code that starts a program or a thread: the stack shown ends before it.
bool is_below_main(const SourceFrame& frame);

// The demangled name of a function template starts with its return type:
// "void std::vector<int>::_M_realloc_insert<int>(...)". This is the name after it.
std::string_view without_return_type(std::string_view name);

// A function's name without return type, template arguments, parameters or libstdc++'s
// inline namespace: "std::vector::push_back", "operator new".
std::string short_name(std::string_view name);

}  // namespace memusagestat
