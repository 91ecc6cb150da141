// SPDX-License-Identifier: MIT
#include "attach/attach_command.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string_view>

#include "attach/elf_symbols.h"
#include "attach/process_maps.h"
#include "attach/stopped_process.h"
#include "collector_location.h"
#include "environment.h"

namespace memusage::attach {
namespace {

constexpr const char* kAttachedCollector = "libmemusage-attach.so";
constexpr const char* kLibc = "/libc.so.6";
constexpr const char* kCopyPrefix = "collector-";

std::string process_name(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(file, name);
    return name;
}

// Where the collector's copies and the reports are: a directory of the process's owner.
std::string work_directory(uid_t owner) { return "/tmp/memusage-attach-" + std::to_string(owner); }

std::string report_path(uid_t owner, pid_t pid) {
    return work_directory(owner) + "/report-" + std::to_string(pid) + ".txt";
}

// What the attach asked for beyond the summary, for the detach (AttachedRun).
std::string request_path(uid_t owner, pid_t pid) {
    return work_directory(owner) + "/request-" + std::to_string(pid);
}

Status make_work_directory(uid_t owner) {
    const std::string directory = work_directory(owner);
    mkdir(directory.c_str(), 0700);
    struct stat st;
    if (lstat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Failure{"memusage: cannot make the directory " + directory};
    if (st.st_uid != owner && geteuid() == 0 && chown(directory.c_str(), owner, st.st_gid) != 0)
        return Failure{"memusage: cannot give " + directory + " to the process's owner"};
    if (lstat(directory.c_str(), &st) != 0 || st.st_uid != owner || (st.st_mode & 077) != 0)
        return Failure{"memusage: " + directory + " is not the process owner's own directory"};
    return {};
}

std::string scope_problem() {
    std::ifstream file("/proc/sys/kernel/yama/ptrace_scope");
    int scope = 0;
    if (!(file >> scope) || scope == 0) return {};
    if (scope >= 3)
        return "memusage: kernel.yama.ptrace_scope is 3: no process can be attached to until "
               "the machine restarts with a lower value";
    if (geteuid() == 0) return {};
    return "memusage: kernel.yama.ptrace_scope is " + std::to_string(scope) +
           ": attaching needs `sysctl kernel.yama.ptrace_scope=0` (or root)";
}

// What forbids attaching to `pid`, as the message; empty when nothing does.
std::string refusal(pid_t pid, const std::vector<MappedRange>& maps, uid_t& owner) {
    const std::string proc = "/proc/" + std::to_string(pid);
    struct stat st;
    if (stat(proc.c_str(), &st) != 0) return "memusage: no process " + std::to_string(pid);
    owner = st.st_uid;
    if (pid == getpid()) return "memusage: cannot attach to itself";
    if (geteuid() != 0 && st.st_uid != geteuid())
        return "memusage: process " + std::to_string(pid) +
               " belongs to another user: only that user (or root) can attach to it";
    if (std::string problem = scope_problem(); !problem.empty()) return problem;
    const std::string named = " (" + process_name(pid) + ")";
    if (maps.empty())
        return "memusage: cannot read the memory map of process " + std::to_string(pid) + named;
    Result<ElfFacts> program = read_elf(proc + "/exe");
    if (!program.ok() || !program.value().has_interpreter || find_module(maps, kLibc) == nullptr)
        return "memusage: process " + std::to_string(pid) + named +
               " is statically linked: there is no dynamic linker in it to load the collector";
    if (find_module(maps, "/libmemusage.so") != nullptr)
        return "memusage: process " + std::to_string(pid) + named +
               " is already profiled (started with memusage or LD_PRELOAD): memusage --watch=" +
               std::to_string(pid) + " shows its figures";
    if (struct stat report; stat(report_path(owner, pid).c_str(), &report) == 0 &&
                            find_module(maps, ".so") != nullptr) {
        for (const MappedRange& range : maps)
            if (range.path.find("/" + std::string(kCopyPrefix) + std::to_string(pid) + "-") !=
                std::string::npos)
                return "memusage: process " + std::to_string(pid) + named +
                       " is already attached: memusage --detach=" + std::to_string(pid) +
                       " ends it";
    }
    return {};
}

bool is_allocator_function(const std::string& name) {
    return name.find("alloc") != std::string::npos || name.find("free") != std::string::npos ||
           name.find("mallinfo") != std::string::npos || name.starts_with("dl") ||
           name.starts_with("_dl") || name.starts_with("__libc_dl");
}

// No thread may be inside the C library's allocator or its dynamic loading (the call takes
// their locks), nor in the dynamic linker (a lazy binding under way), nor, to detach, in the
// collector.
Result<std::vector<BusyRange>> busy_ranges(const std::vector<MappedRange>& maps,
                                           const std::string& libc_path, bool collector_too) {
    Result<ElfFacts> libc = read_elf(libc_path);
    if (!libc.ok()) return Failure{"memusage: " + libc.error()};
    const uintptr_t base = load_base(maps, libc_path);
    std::vector<BusyRange> busy;
    for (const auto& [name, symbol] : libc.value().functions)
        if (is_allocator_function(name))
            busy.push_back({static_cast<uintptr_t>(base + symbol.address),
                            static_cast<uintptr_t>(base + symbol.address + symbol.size), true});
    for (const MappedRange& range : maps) {
        if (!range.executable) continue;
        if (range.path.find("/ld-linux") != std::string::npos)
            busy.push_back({range.begin, range.end, true});
        if (collector_too && range.path.find("/" + std::string(kCopyPrefix)) != std::string::npos)
            busy.push_back({range.begin, range.end, true});
    }
    return busy;
}

std::string attached_collector_path() {
    Result<std::string> preloaded = locate_collector();
    if (!preloaded.ok()) return {};
    return std::filesystem::path(preloaded.value()).parent_path() / kAttachedCollector;
}

std::string absolute(const std::string& path) {
    std::error_code error;
    return std::filesystem::absolute(path, error).string();
}

// Where the collector writes the files the reports need: those the options name, else
// files of the work directory, removed once the detach has made the reports.
AttachedRun place_files(const DriverOptions& options, uid_t owner, pid_t pid) {
    AttachedRun run;
    const std::string stem = work_directory(owner) + "/run-" + std::to_string(pid);
    auto place = [&](std::string& path, const std::string& named, bool needed, const char* suffix) {
        if (!named.empty())
            path = absolute(named);
        else if (needed)
            run.private_files.push_back(path = stem + suffix);
    };
    const bool html = wants_html(options);
    place(run.data_path, options.data_path, html, ".dat");
    place(run.sites_path, options.sites_path, wants_sites(options) || html, ".sites");
    place(run.events_path, options.events_path, wants_events(options) || html, ".events");
    place(run.summary_path, {}, html, ".summary");
    if (wants_sites(options) || html) run.arguments = options.arguments;
    std::error_code error;
    run.directory = std::filesystem::current_path(error).string();
    run.attach_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
    return run;
}

// The collector's settings, one "NAME=VALUE" a line, as a run's environment would have them.
std::string settings_for(const DriverOptions& options, const AttachedRun& run,
                         const std::string& report) {
    DriverOptions collected = options;
    collected.events_path = run.events_path;
    collected.summary_path = run.summary_path;
    std::string text;
    for (const std::string& entry :
         child_environment({}, collected, "", run.data_path, run.sites_path))
        if (entry.starts_with("MEMUSAGE_")) text += entry + "\n";
    text += "MEMUSAGE_NO_TIMER=yes\nMEMUSAGE_ATTACH_REPORT=" + report + "\n";
    return text;
}

// The request, its fields ended by nulls: a version, the directory, the four files, the
// time, the private files' count and names, then the arguments.
constexpr std::string_view kRequestVersion = "memusage-attach-request-1";

Status save_request(const std::string& path, const AttachedRun& run) {
    std::string text;
    auto add = [&](const std::string& field) { text += field + '\0'; };
    add(std::string(kRequestVersion));
    for (const std::string* field :
         {&run.directory, &run.data_path, &run.sites_path, &run.events_path, &run.summary_path})
        add(*field);
    add(std::to_string(run.attach_ns));
    add(std::to_string(run.private_files.size()));
    for (const std::string& file : run.private_files) add(file);
    for (const std::string& argument : run.arguments) add(argument);
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file.flush()) return Failure{"memusage: cannot write " + path};
    return {};
}

// The request saved at the attach, if any (and removed); false when it is not one.
bool take_request(const std::string& path, AttachedRun& run) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return true;  // the attach asked for the summary only
    std::vector<std::string> fields;
    for (std::string field; std::getline(file, field, '\0');) fields.push_back(field);
    unlink(path.c_str());
    if (fields.size() < 8 || fields[0] != kRequestVersion) return false;
    run.directory = fields[1];
    run.data_path = fields[2];
    run.sites_path = fields[3];
    run.events_path = fields[4];
    run.summary_path = fields[5];
    char* end = nullptr;
    run.attach_ns = std::strtoull(fields[6].c_str(), &end, 10);
    const unsigned long long count = std::strtoull(fields[7].c_str(), &end, 10);
    if (count > fields.size() - 8) return false;
    run.private_files.assign(fields.begin() + 8, fields.begin() + 8 + static_cast<long>(count));
    run.arguments.assign(fields.begin() + 8 + static_cast<long>(count), fields.end());
    return true;
}

// A copy of the collector of its own for this attach: a process given back keeps its last
// collector loaded, and a later attach gets a fresh one.
Result<std::string> copy_collector(const std::string& collector, uid_t owner, pid_t pid) {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    const std::string copy = work_directory(owner) + "/" + kCopyPrefix + std::to_string(pid) + "-" +
                             std::to_string(stamp) + ".so";
    std::error_code error;
    std::filesystem::copy_file(collector, copy, error);
    if (error) return Failure{"memusage: cannot copy the collector to " + copy};
    chmod(copy.c_str(), 0644);
    if (geteuid() == 0 && chown(copy.c_str(), owner, static_cast<gid_t>(-1)) != 0)
        return Failure{"memusage: cannot give " + copy + " to the process's owner"};
    return copy;
}

Result<uintptr_t> function_in(const std::vector<MappedRange>& maps, const std::string& mapped_as,
                              const std::string& file, const char* name) {
    Result<ElfFacts> facts = read_elf(file);
    if (!facts.ok()) return Failure{"memusage: " + facts.error()};
    const auto found = facts.value().functions.find(name);
    const uintptr_t base = load_base(maps, mapped_as);
    if (found == facts.value().functions.end() || base == 0)
        return Failure{std::string("memusage: no ") + name + " in " + file};
    return static_cast<uintptr_t>(base + found->second.address);
}

std::string unreadable_request(pid_t pid) {
    return "memusage: what the attach to process " + std::to_string(pid) +
           " asked for beyond the summary cannot be read: no reports";
}

int fail(const std::string& message) {
    std::cerr << message << '\n';
    return 1;
}

// Empty where attaching is done.
#if defined(__x86_64__)
constexpr std::string_view kUnsupported;
#else
constexpr std::string_view kUnsupported =
    "memusage: --attach and --detach are not available on this machine yet (x86_64 only)";
#endif

// Loads `copy` in the stopped process and starts it with `settings`.
Status load_and_start(StoppedProcess& process, pid_t pid, const std::string& libc_path,
                      const std::string& copy, const std::string& settings) {
    std::vector<MappedRange> maps = read_maps(pid);
    Result<uintptr_t> dlopen_at = function_in(maps, libc_path, libc_path, "dlopen");
    if (!dlopen_at.ok()) return Failure{dlopen_at.error()};
    Result<uint64_t> handle = process.call_function(dlopen_at.value(), copy, 0, RTLD_NOW);
    if (!handle.ok()) return Failure{handle.error()};
    if (handle.value() == 0)
        return Failure{"memusage: process " + std::to_string(pid) +
                       " could not load the collector (its dlopen failed)"};
    maps = read_maps(pid);
    Result<uintptr_t> entry = function_in(maps, copy, copy, "memusage_attach");
    if (!entry.ok()) return Failure{entry.error()};
    Result<uint64_t> started = process.call_function(entry.value(), settings, 0, 0);
    if (!started.ok()) return Failure{started.error()};
    const int code = static_cast<int>(static_cast<uint32_t>(started.value()));
    if (code != 0)
        return Failure{"memusage: the collector did not start in process " + std::to_string(pid) +
                       ": " + strerror(-code)};
    return {};
}

void print_report(const std::string& path) {
    std::ifstream report(path);
    std::cerr << report.rdbuf();
    std::cerr.flush();
    unlink(path.c_str());
}

}  // namespace

int attach_to(pid_t pid, const DriverOptions& options) {
    if (!kUnsupported.empty()) return fail(std::string(kUnsupported));
    std::vector<MappedRange> maps = read_maps(pid);
    uid_t owner = 0;
    if (std::string problem = refusal(pid, maps, owner); !problem.empty()) return fail(problem);
    const std::string collector = attached_collector_path();
    if (collector.empty() || access(collector.c_str(), R_OK) != 0)
        return fail("memusage: cannot find " + std::string(kAttachedCollector));
    if (Status made = make_work_directory(owner); !made.ok()) return fail(made.error());
    const std::string libc_path = find_module(maps, kLibc)->path;
    Result<std::vector<BusyRange>> busy = busy_ranges(maps, libc_path, false);
    if (!busy.ok()) return fail(busy.error());
    const std::string report = report_path(owner, pid);
    const AttachedRun run = place_files(options, owner, pid);
    const std::string settings = settings_for(options, run, report);
    Result<std::string> copy = copy_collector(collector, owner, pid);
    if (!copy.ok()) return fail(copy.error());
    Status loaded;
    {
        StoppedProcess process(pid);
        loaded = process.stop(busy.value());
        if (loaded.ok()) loaded = load_and_start(process, pid, libc_path, copy.value(), settings);
    }
    // The process keeps the copy mapped: the file is no longer needed.
    unlink(copy.value().c_str());
    if (!loaded.ok()) return fail(loaded.error());
    const std::string request = request_path(owner, pid);
    unlink(request.c_str());
    if (!run.arguments.empty()) {
        if (Status saved = save_request(request, run); !saved.ok()) return fail(saved.error());
    }
    std::cerr << "memusage: attached to process " << pid << " (" << process_name(pid)
              << "); memusage --detach=" << pid << " gives it back and prints the summary\n";
    return 0;
}

int detach_from(pid_t pid, AttachedRun& run) {
    if (!kUnsupported.empty()) return fail(std::string(kUnsupported));
    const std::string proc = "/proc/" + std::to_string(pid);
    struct stat st;
    const uid_t owner = stat(proc.c_str(), &st) == 0 ? st.st_uid : geteuid();
    const std::string report = report_path(owner, pid);
    if (stat(proc.c_str(), &st) != 0) {
        if (access(report.c_str(), R_OK) != 0)
            return fail("memusage: no process " + std::to_string(pid));
        // It ended while attached: its summary (and sites) were written as it exited.
        print_report(report);
        return take_request(request_path(owner, pid), run) ? 0 : fail(unreadable_request(pid));
    }
    std::vector<MappedRange> maps = read_maps(pid);
    std::set<std::string> copies;
    for (const MappedRange& range : maps)
        if (range.path.find("/" + std::string(kCopyPrefix) + std::to_string(pid) + "-") !=
            std::string::npos)
            copies.insert(range.path);
    if (copies.empty() || access(report.c_str(), R_OK) != 0)
        return fail("memusage: process " + std::to_string(pid) +
                    " is not attached (memusage --attach=" + std::to_string(pid) +
                    " attaches to it)");
    if (std::string problem = scope_problem(); !problem.empty()) return fail(problem);
    const MappedRange* libc = find_module(maps, kLibc);
    if (libc == nullptr) return fail("memusage: no C library in process " + std::to_string(pid));
    Result<std::vector<BusyRange>> busy = busy_ranges(maps, libc->path, true);
    if (!busy.ok()) return fail(busy.error());
    // The copies are removed: their symbols are the installed collector's.
    const std::string collector = attached_collector_path();
    int detached = 0;
    {
        StoppedProcess process(pid);
        if (Status stopped = process.stop(busy.value()); !stopped.ok())
            return fail(stopped.error());
        for (const std::string& copy : copies) {
            Result<uintptr_t> entry = function_in(maps, copy, collector, "memusage_detach");
            if (!entry.ok()) return fail(entry.error());
            Result<uint64_t> done = process.call_function(entry.value(), "", 0, 0);
            if (!done.ok()) return fail(done.error());
            if (static_cast<uint32_t>(done.value()) == 0) ++detached;
        }
    }
    if (detached == 0) return fail("memusage: process " + std::to_string(pid) + " is not attached");
    print_report(report);
    return take_request(request_path(owner, pid), run) ? 0 : fail(unreadable_request(pid));
}

}  // namespace memusage::attach
