// SPDX-License-Identifier: MIT
#include "sites/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "memusagestat/symbols.h"
#include "sites/frame_folding.h"
#include "sites/symbol_index.h"

namespace memusagestat {
namespace {

// The name a DIE gives its function, through the abstract origin of an inlined call.
std::string function_name(Dwarf_Die* die) {
    Dwarf_Attribute attribute;
    for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name})
        if (dwarf_attr_integrate(die, name, &attribute) != nullptr)
            if (const char* text = dwarf_formstring(&attribute)) return demangled_name(text);
    if (dwarf_attr_integrate(die, DW_AT_name, &attribute) != nullptr)
        if (const char* text = dwarf_formstring(&attribute)) return text;
    return {};
}

// A source file's path as the debug information gives it, joined with the compile
// directory when it is relative: a DWARF 5 line table names a file by a directory relative
// to the compile directory ("sub" for `cc -g sub/prog.c`), which libdw leaves relative, so
// the file would be found only from the compile directory. A relative compile directory
// (-fdebug-prefix-map=DIR=.) gives nothing better: the path is left as it is.
// The joined path is made lexically normal, so `cc -g ../src/prog.c` names
// /home/me/src/prog.c, not /home/me/build/../src/prog.c.
std::string compiled_path(std::string file, const char* comp_dir) {
    if (file.empty() || file.front() == '/' || comp_dir == nullptr || comp_dir[0] != '/')
        return file;
    return (std::filesystem::path(comp_dir) / file).lexically_normal().string();
}

const char* comp_dir_of(Dwarf_Die* cu) {
    Dwarf_Attribute attribute;
    return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attribute));
}

// Where an inlined call was made: the location in the function it was inlined into.
void call_site(Dwarf_Die* cu, Dwarf_Die* inlined, std::string& file, int& line) {
    Dwarf_Attribute attribute;
    Dwarf_Word value = 0;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &value) == 0) {
        Dwarf_Files* files = nullptr;
        size_t count = 0;
        const char* name = nullptr;
        if (dwarf_getsrcfiles(cu, &files, &count) == 0 && value < count)
            name = dwarf_filesrc(files, value, nullptr, nullptr);
        file = name != nullptr ? compiled_path(name, comp_dir_of(cu)) : "";
    }
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &value) == 0)
        line = static_cast<int>(value);
}

std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The C library itself, whose internal names public_name() maps.
bool is_libc(const std::string& path) { return base_name(path).starts_with("libc.so"); }

bool is_runtime(const std::string& path) {
    std::string name = base_name(path);
    for (const char* prefix :
         {"libc.so", "libstdc++.so", "libglib-2.0.so", "libgcc_s.so", "ld-linux"})
        if (name.starts_with(prefix)) return true;
    return false;
}

std::string without_trailing_slashes(std::string directory) {
    while (!directory.empty() && directory.back() == '/') directory.pop_back();
    return directory;
}

// memusagestat/symbols.h: "" for the paths as they are. MEMUSAGE_SYSROOT gives it to every
// reader of a board's files at once (memusagestat, the driver's reports, the boards' tests);
// --sysroot overrides it.
std::string& sysroot() {
    static std::string directory = [] {
        const char* given = std::getenv("MEMUSAGE_SYSROOT");
        return without_trailing_slashes(given ? given : "");
    }();
    return directory;
}

// The module's file on this machine: in the sysroot when it holds it, else at its own path
// (a program built here and run on the board is seldom copied into the board's root); the
// build ID check below says when that file is not the one that ran.
std::string file_of(const SitesModule& module) {
    if (sysroot().empty()) return module.path;
    std::string inside = sysroot() + module.path;
    return ::access(inside.c_str(), F_OK) == 0 ? inside : module.path;
}

enum class BuildIdCheck { same, changed, missing, unreadable };

BuildIdCheck check_build_id(const SitesModule& module) {
    int fd = ::open(file_of(module).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return BuildIdCheck::missing;
    BuildIdCheck result = BuildIdCheck::unreadable;
    if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
        if (elf_kind(elf) == ELF_K_ELF) {
            const void* bytes = nullptr;
            ssize_t length = dwelf_elf_gnu_build_id(elf, &bytes);
            std::string on_disk = length > 0 ? std::string(static_cast<const char*>(bytes),
                                                           static_cast<size_t>(length))
                                             : std::string();
            result = on_disk == module.build_id ? BuildIdCheck::same : BuildIdCheck::changed;
        }
        elf_end(elf);
    }
    ::close(fd);
    return result;
}

char* debuginfo_path = nullptr;  // the default: beside the file, /usr/lib/debug, build-ids

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

}  // namespace

struct Symbolizer::ModuleState {
    const SitesModule* info = nullptr;
    bool checked = false;                // its build-id compared with the file's, and any note said
    bool readable = false;               // the file is the run's and libdw can read it
    bool reported = false;               // to the Dwfl of now (close_files begins another)
    Dwfl_Module* dwfl_module = nullptr;  // null when unreadable or not reported
    std::unique_ptr<SymbolIndex> symbols;  // made on first use
    bool runtime = false;
};

struct Symbolizer::State {
    Dwfl* dwfl = nullptr;
    std::vector<ModuleState> modules;  // by start address

    ~State() {
        if (dwfl != nullptr) dwfl_end(dwfl);
    }
};

std::string demangled_name(const char* name) {
    if (name == nullptr) return {};
    if (std::strncmp(name, "_Z", 2) != 0) return name;
    int status = 0;
    char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || readable == nullptr) return name;
    std::string result = readable;
    std::free(readable);
    return result;
}

void set_symbol_sysroot(const std::string& directory) {
    sysroot() = without_trailing_slashes(directory);
}

Symbolizer::Symbolizer(const std::vector<SitesModule>& modules) : state_(new State) {
    elf_version(EV_CURRENT);
    state_->dwfl = dwfl_begin(&kCallbacks);
    for (const SitesModule& module : modules) {
        ModuleState entry;
        entry.info = &module;
        entry.runtime = is_runtime(module.path);
        state_->modules.push_back(std::move(entry));
    }
    std::sort(
        state_->modules.begin(), state_->modules.end(),
        [](const ModuleState& a, const ModuleState& b) { return a.info->start < b.info->start; });
}

Symbolizer::~Symbolizer() = default;

// The module that held the address, reported to libdw on first use if its file is the
// one the run loaded.
Symbolizer::ModuleState* Symbolizer::module_of(uint64_t address) {
    auto& modules = state_->modules;
    auto after =
        std::upper_bound(modules.begin(), modules.end(), address,
                         [](uint64_t a, const ModuleState& m) { return a < m.info->start; });
    if (after == modules.begin()) return nullptr;
    ModuleState& module = *(after - 1);
    if (address >= module.info->end) return nullptr;
    if (!module.checked) {
        module.checked = true;
        module.readable = build_id_matches(module);
    }
    if (module.readable && !module.reported) {
        module.reported = true;
        const std::string path = file_of(*module.info);
        if (state_->dwfl != nullptr) {
            dwfl_report_begin_add(state_->dwfl);
            module.dwfl_module = dwfl_report_elf(state_->dwfl, path.c_str(), path.c_str(), -1,
                                                 module.info->load_bias, false);
            dwfl_report_end(state_->dwfl, nullptr, nullptr);
        }
        if (module.dwfl_module == nullptr) {
            module.readable = false;
            notes_.push_back(path + " could not be read (" + dwfl_errmsg(-1) +
                             "): its frames are shown as module+offset");
        }
    }
    return &module;
}

// Whether the module's file is the one the run loaded; a note says why not.
bool Symbolizer::build_id_matches(const ModuleState& module) {
    const std::string path = file_of(*module.info);
    switch (check_build_id(*module.info)) {
        case BuildIdCheck::same:
            return true;
        case BuildIdCheck::changed:
            notes_.push_back(path +
                             " has changed since the run (its build-id differs): its "
                             "frames are shown as module+offset");
            return false;
        case BuildIdCheck::missing:
            notes_.push_back(path +
                             " is gone since the run: its frames are shown as module+offset");
            return false;
        case BuildIdCheck::unreadable:
            notes_.push_back(path +
                             " is not a readable ELF file: its frames are shown as "
                             "module+offset");
            return false;
    }
    return false;
}

void Symbolizer::close_files() {
    if (state_->dwfl == nullptr) return;
    dwfl_end(state_->dwfl);
    state_->dwfl = dwfl_begin(&kCallbacks);
    for (ModuleState& module : state_->modules) {
        module.reported = false;
        module.dwfl_module = nullptr;
        module.symbols.reset();
    }
}

const std::vector<SourceFrame>& Symbolizer::frames_of(uint64_t return_address) {
    auto found = cache_.find(return_address);
    if (found != cache_.end()) return found->second;
    return cache_.emplace(return_address, symbolize(return_address)).first->second;
}

std::vector<SourceFrame> Symbolizer::symbolize(uint64_t return_address) {
    // A return address follows the call: the call itself is the byte before.
    uint64_t pc = return_address > 0 ? return_address - 1 : 0;
    SourceFrame base;
    base.offset = return_address;
    ModuleState* module = module_of(pc);
    if (module == nullptr) return {base};
    base.module = module->info->path;
    base.offset = return_address - module->info->load_bias;
    base.runtime = module->runtime;
    Dwfl_Module* mod = module->dwfl_module;
    if (mod == nullptr) return {base};

    if (module->symbols == nullptr) module->symbols = std::make_unique<SymbolIndex>(mod);
    std::string outer_name = demangled_name(module->symbols->name_of(pc));
    // A versioned symbol of the symbol table: "pthread_create@GLIBC_2.2.5".
    if (size_t version = outer_name.find('@'); version != std::string::npos)
        outer_name.erase(version);
    outer_name = public_name(std::move(outer_name), is_libc(base.module));
    std::string file;
    int line = 0;
    if (Dwfl_Line* source = dwfl_module_getsrc(mod, pc)) {
        const char* comp_dir = dwfl_line_comp_dir(source);
        if (comp_dir != nullptr) base.comp_dir = comp_dir;
        if (const char* name = dwfl_lineinfo(source, nullptr, &line, nullptr, nullptr, nullptr))
            file = compiled_path(name, comp_dir);
        else
            line = 0;
    }

    std::vector<SourceFrame> frames;
    int outer_line = 0;
    Dwarf_Addr bias = 0;
    if (Dwarf_Die* cu = dwfl_module_addrdie(mod, pc, &bias)) {
        // The innermost scope holding the address, then the DIEs that enclose it in the
        // tree: dwarf_getscopes alone would continue, past the first inlined call, in the
        // scopes of that call's abstract definition instead of the function it is in.
        Dwarf_Die* scopes = nullptr;
        int count = dwarf_getscopes(cu, pc - bias, &scopes);
        if (count > 0) {
            Dwarf_Die innermost = scopes[0];
            std::free(scopes);
            scopes = nullptr;
            count = dwarf_getscopes_die(&innermost, &scopes);
        }
        for (int i = 0; i < count; ++i) {
            int tag = dwarf_tag(&scopes[i]);
            if (tag == DW_TAG_inlined_subroutine) {
                SourceFrame inlined = base;
                inlined.function = function_name(&scopes[i]);
                inlined.file = file;
                inlined.line = line;
                inlined.inlined = true;
                dwarf_decl_line(&scopes[i], &inlined.function_line);
                frames.push_back(std::move(inlined));
                call_site(cu, &scopes[i], file, line);
            } else if (tag == DW_TAG_subprogram) {
                if (outer_name.empty()) outer_name = function_name(&scopes[i]);
                dwarf_decl_line(&scopes[i], &outer_line);
                break;
            }
        }
        std::free(scopes);
    }
    SourceFrame outer = base;
    outer.function = std::move(outer_name);
    outer.file = std::move(file);
    outer.line = line;
    outer.function_line = outer_line;
    frames.push_back(std::move(outer));
    return frames;
}

}  // namespace memusagestat
