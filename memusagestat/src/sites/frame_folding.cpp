// SPDX-License-Identifier: MIT
#include "sites/frame_folding.h"

namespace memusagestat {

namespace {

// The text before a '(' ends with the keyword decltype (and maybe a space).
bool follows_decltype(std::string_view before) {
    while (before.ends_with(' ')) before.remove_suffix(1);
    return before.ends_with("decltype") && (before.size() == 8 || before[before.size() - 9] == ' ');
}

// Parts of a demangled name that hold parentheses but are no parameter list: an anonymous
// namespace, and the braces of a lambda or an unnamed type ("{lambda(int)#1}"). Their
// length when one starts at `at`, else 0.
size_t name_part_length(std::string_view name, size_t at) {
    constexpr std::string_view kAnonymous = "(anonymous namespace)";
    if (name.substr(at).starts_with(kAnonymous)) return kAnonymous.size();
    if (name[at] != '{') return 0;
    int depth = 0;
    for (size_t i = at; i < name.size(); ++i) {
        if (name[i] == '{') ++depth;
        if (name[i] == '}' && --depth == 0) return i + 1 - at;
    }
    return 0;
}

}  // namespace

std::string_view without_return_type(std::string_view name) {
    if (name.starts_with("operator")) return name;
    int depth = 0;
    size_t start = 0;
    size_t first = 0;
    // A return type written "decltype (...)" holds parentheses at the top level: step over
    // them, or the name would end where the return type begins.
    if (name.starts_with("decltype")) {
        size_t open = name.find('(');
        for (size_t i = open; open != std::string_view::npos && i < name.size(); ++i) {
            if (name[i] == '(') ++depth;
            if (name[i] == ')' && --depth == 0) {
                first = i + 1;
                break;
            }
        }
        depth = 0;
    }
    for (size_t i = first; i < name.size(); ++i) {
        if (size_t part = name_part_length(name, i)) {
            i += part - 1;
            continue;
        }
        char c = name[i];
        // The parameters start at the first '(' outside brackets, but for a return type
        // that is a decltype(...) expression.
        if (c == '(' && depth == 0 && !follows_decltype(name.substr(0, i))) break;
        if (c == '<' || c == '(') ++depth;
        if (c == '>' || c == ')') --depth;
        if (c == ' ' && depth == 0) {
            if (name.substr(0, i).ends_with("operator")) break;  // "X::operator new"
            start = i + 1;
        }
    }
    return name.substr(start);
}

std::string short_name(std::string_view full) {
    std::string_view name = without_return_type(full);
    std::string result;
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        if (size_t part = name_part_length(name, i)) {
            if (depth == 0) result += name.substr(i, part);
            i += part - 1;
            continue;
        }
        char c = name[i];
        bool in_operator_name = result.ends_with("operator") || result.ends_with("operator<") ||
                                result.ends_with("operator>") || result.ends_with("operator-");
        if (c == '<' && !in_operator_name) {
            ++depth;
        } else if (c == '>' && depth > 0 && !in_operator_name) {
            --depth;
        } else if (depth == 0) {
            if (c == '(' && !result.ends_with("operator")) break;
            result += c;
        }
    }
    // libstdc++'s inline namespace says nothing a reader needs.
    for (size_t at; (at = result.find("std::__cxx11::")) != std::string::npos;)
        result.erase(at + 5, 9);
    return result.empty() ? std::string(full) : result;
}

std::string display_name(std::string_view full) {
    std::string_view name = without_return_type(full);
    std::string result;
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        if (size_t part = name_part_length(name, i)) {
            result += name.substr(i, part);
            i += part - 1;
            continue;
        }
        char c = name[i];
        bool in_operator_name = result.ends_with("operator") || result.ends_with("operator<") ||
                                result.ends_with("operator>") || result.ends_with("operator-");
        if (c == '<' && !in_operator_name) ++depth;
        if (c == '>' && depth > 0 && !in_operator_name) --depth;
        if (c == '(' && depth == 0 && !result.ends_with("operator")) break;
        result += c;
    }
    constexpr std::string_view kString =
        "std::basic_string<char, std::char_traits<char>, std::allocator<char> >";
    for (size_t at; (at = result.find("std::__cxx11::")) != std::string::npos;)
        result.erase(at + 5, 9);
    for (size_t at; (at = result.find(kString)) != std::string::npos;)
        result.replace(at, kString.size(), "std::string");
    return result.empty() ? std::string(full) : result;
}

namespace {

// What GCC appends to the symbol of a function it cloned or split: interprocedural
// scalar replacement (.isra), constant propagation (.constprop), a part split off
// (.part), the cold part (.cold), a local copy of an LTO symbol (.lto_priv), and the
// numbers after them.
bool is_clone_suffix(std::string_view rest) {
    for (std::string_view kind : {".isra", ".constprop", ".part", ".cold", ".lto_priv"})
        if (rest.starts_with(kind) && (rest.size() == kind.size() || rest[kind.size()] == '.'))
            return true;
    return false;
}

// The C library's internal names and the public functions users call. Each internal one
// is what its symbol table names the code at those addresses, the public name being an
// alias of it or a function that tail-calls it (so its own frame is gone).
struct Alias {
    std::string_view internal, shown;
};
constexpr Alias kLibcAliases[] = {
    {"__strdup", "strdup"},    // strdup is a weak alias of __strdup
    {"__strndup", "strndup"},  // likewise
    // getline and getdelim both tail-call __getdelim: which of them the program called
    // is not in the stack.
    {"__getdelim", "getline/getdelim"},
    {"__fopen_internal", "fopen"},  // fopen (_IO_new_fopen) tail-calls it
    {"_IO_new_fopen", "fopen"},     // fopen's own code, named for its symbol version
    {"_IO_new_fdopen", "fdopen"},   // likewise
    {"_IO_new_popen", "popen"},     // likewise
    {"__alloc_dir", "opendir"},     // opendir and fdopendir allocate the DIR here
    {"__vasprintf_internal", "asprintf/vasprintf"},  // both call it
};

}  // namespace

std::string public_name(std::string name, bool in_libc) {
    if (size_t clone = name.find(" [clone "); clone != std::string::npos) name.erase(clone);
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
        if (dot > 0 && is_clone_suffix(std::string_view(name).substr(dot))) {
            name.erase(dot);
            break;
        }
    if (in_libc)
        for (const Alias& alias : kLibcAliases)
            if (name == alias.internal) return std::string(alias.shown);
    return name;
}

bool is_wrapper(const SourceFrame& frame) {
    if (frame.runtime) return true;
    std::string_view name = without_return_type(frame.function);
    for (const char* prefix :
         {"operator new", "std::", "__gnu_cxx::", "g_malloc", "g_malloc0", "g_realloc",
          "g_try_malloc", "g_try_realloc", "g_slice_", "g_strdup", "g_strndup", "g_memdup"})
        if (name.starts_with(prefix)) return true;
    return false;
}

bool is_below_main(const SourceFrame& frame) {
    for (const char* start :
         {"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
          "start_thread", "clone", "clone3", "__clone", "__clone3", "__clone_internal"})
        if (frame.function == start) return true;
    return false;
}

ShownFrames shown_frames(const std::vector<SourceFrame>& frames) {
    ShownFrames shown;
    if (frames.empty()) return shown;
    size_t first = 0;
    while (first < frames.size() && is_wrapper(frames[first])) ++first;
    if (first == frames.size()) first = 0;  // nothing but wrappers: show them all
    if (first > 0) shown.via = &frames[first - 1];
    size_t end = first + 1;
    while (end < frames.size() && frames[end - 1].function != "main" && !is_below_main(frames[end]))
        ++end;
    while (end > first + 1 && is_wrapper(frames[end - 1])) --end;
    shown.first = first;
    shown.end = end;
    return shown;
}

}  // namespace memusagestat
