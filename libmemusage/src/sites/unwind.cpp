// SPDX-License-Identifier: MIT
#include "sites/unwind.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>

#include "platform/signal_context.h"
#include "platform/unwinder_abi.h"
#include "sites/own_memory.h"

namespace memusage::unwind {
namespace {

// The start of libunwind's unw_accessors_t (libunwind.h, unchanged since 0.99): the
// callbacks through which its local address space reads the unwound thread's memory.
using Word = uintptr_t;
using AccessMemory = int (*)(void* space, Word address, Word* value, int write, void* arg);
struct Accessors {
    void* find_proc_info;
    void* put_unwind_info;
    void* get_dyn_info_list_addr;
    AccessMemory access_mem;
};
using GetAccessors = Accessors* (*)(void* space);

// The step-by-step unwind's calls (platform/unwinder_abi.h: the cursor's size and the
// registers' numbers on this machine; the context is a ucontext_t, or room enough for it).
struct Cursor {
    Word opaque[unwinder_abi::kCursorWords];
};
using GetContext = int (*)(ucontext_t* context);
using InitLocal = int (*)(Cursor* cursor, ucontext_t* context);
using InitLocal2 = int (*)(Cursor* cursor, ucontext_t* context, int flags);
using Step = int (*)(Cursor* cursor);
using GetRegister = int (*)(Cursor* cursor, int reg, Word* value);
constexpr int kInstructionPointer = unwinder_abi::kInstructionPointer;
constexpr int kStackPointer = unwinder_abi::kStackPointer;
constexpr int kInitSignalFrame = 1;  // UNW_INIT_SIGNAL_FRAME
GetContext get_context = nullptr;
InitLocal init_local = nullptr;
InitLocal2 init_local2 = nullptr;  // libunwind 1.3 on; without it, ticks capture nothing
Step step = nullptr;
GetRegister get_register = nullptr;

// unw_backtrace gives every thread that calls it a trace cache of its own (2^14 frames of
// 16 bytes, filled in when made, so all of it resident) until the thread exits: 2,000 live
// threads took 600 MB with sites against 96 MB without. So only this many threads at a time
// unwind with it, the first to capture (a program with few threads keeps its speed); the
// others step through their frames with unw_step, which keeps nothing per thread under
// libunwind's default global caching policy (it takes a lock with signals blocked for each
// frame: slower). 4 MiB at most, whatever the number of threads.
constexpr uint32_t kTracedThreads = 16;
std::atomic<uint32_t> traced_threads{0};

AccessMemory libunwind_access_memory = nullptr;

// Starts `cursor` at the calling function: inlined, so that the frame get_context records
// is its caller's, which stays while the cursor reads it. `context` and `room` are the
// caller's too (room: platform/signal_context.h). False when libunwind refuses.
__attribute__((always_inline)) inline bool start_here(Cursor& cursor, ucontext_t& context,
                                                      ucontext_t& room) {
    return get_context(&context) == 0 &&
           init_local(&cursor, static_cast<ucontext_t*>(unwinder_context(&context, room))) == 0;
}

using FlushCache = void (*)(void* space, Word low, Word high);
std::atomic<FlushCache> flush_cache{nullptr};
void* local_address_space = nullptr;

// Pages this thread read safely before: where libunwind guesses frames (code without
// unwind information, the outermost frame of most programs) it reads the same stack words
// on every unwind. libunwind kept such a cache too (four pages, for all threads).
constexpr int kKnownPages = 4;
__thread Word known_pages[kKnownPages];
__thread unsigned next_known_page = 0;

bool on_known_page(Word page) {
    for (Word known : known_pages)
        if (known == page) return true;
    return false;
}

// libunwind reads through this with validation wherever it guesses a frame (from frame
// pointers, which may be anything). Its own validation writes the word into a pipe it
// keeps at whatever descriptors were free when it made it, and remakes it at the lowest
// free ones whenever a read from it fails: a program that closes its descriptors and
// opens files gets them read and written. This reads a word that may not be mapped
// without the program's descriptors (own_memory.h), and leaves errno as the program had
// it. libunwind's trace reads the stack directly, but its initialisation of every unwind
// reads two words through this (from the context on our own stack, a known page, on
// every capture): so the read from a known page is kept small, calling nothing, and the
// slow way is out of line.
__attribute__((noinline, cold)) int read_unknown_page(Word address, Word* value, Word page);

int read_memory(void* space, Word address, Word* value, int write, void* arg) {
    if (__builtin_expect(write != 0, 0))
        return libunwind_access_memory(space, address, value, write, arg);
    Word page = address & ~Word{4095};
    if (page == 0) return -1;
    if (__builtin_expect(page == ((address + sizeof(Word) - 1) & ~Word{4095}), 1) &&
        on_known_page(page)) {
        *value = *reinterpret_cast<const Word*>(address);
        return 0;
    }
    return read_unknown_page(address, value, page);
}

int read_unknown_page(Word address, Word* value, Word page) {
    if (!own_memory::read(value, address, sizeof(Word))) return -1;
    known_pages[next_known_page++ % kKnownPages] = page;
    return 0;
}

// The two lowest free descriptors: where libunwind's pipe goes when it makes it.
void lowest_free_descriptors(int (&free_fds)[2]) {
    int found = 0;
    for (int fd = 0; found < 2 && fd < 65536; ++fd)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) free_fds[found++] = fd;
}

// libunwind made its validation pipe while initialising; it never uses it once the reads
// are ours, and the numbers are the program's to take.
void close_validation_pipe(const int (&were_free)[2]) {
    struct stat read_end, write_end;
    if (fstat(were_free[0], &read_end) != 0 || fstat(were_free[1], &write_end) != 0) return;
    if (!S_ISFIFO(read_end.st_mode) || read_end.st_ino != write_end.st_ino ||
        read_end.st_dev != write_end.st_dev)
        return;
    close(were_free[0]);
    close(were_free[1]);
}

struct CodeRange {
    uintptr_t inside;
    uintptr_t* start;
    uintptr_t* end;
};

int find_code(dl_phdr_info* info, size_t, void* data) {
    auto* range = static_cast<CodeRange*>(data);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + segment.p_vaddr;
        uintptr_t end = start + segment.p_memsz;
        if (range->inside >= start && range->inside < end) {
            *range->start = start;
            *range->end = end;
            return 1;
        }
    }
    return 0;
}

void find_code_around(const void* inside, uintptr_t& start, uintptr_t& end) {
    CodeRange range = {reinterpret_cast<uintptr_t>(inside), &start, &end};
    dl_iterate_phdr(find_code, &range);
}

// A signal handler returns to the signal return trampoline: its frame is the signal frame.
constexpr const auto& kSigreturn = unwinder_abi::kSignalReturn;

bool is_signal_frame(uintptr_t address) {
    unsigned char code[sizeof kSigreturn];
    if (!own_memory::read(code, address, sizeof code)) return false;
    for (size_t i = 0; i < sizeof code; ++i)
        if (code[i] != kSigreturn[i]) return false;
    return true;
}

}  // namespace

void end_thread() {
    using detail::Way;
    Way way = detail::thread_way;
    // Stepped first: a signal handler's capture from here on takes no place.
    detail::thread_way = Way::stepped;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (way == Way::traced) traced_threads.fetch_sub(1, std::memory_order_relaxed);
}

void after_fork_in_child() {
    traced_threads.store(detail::thread_way == detail::Way::traced ? 1 : 0,
                         std::memory_order_relaxed);
}

namespace detail {

Way choose_way() {
    // A signal handler's capture that interrupts this one steps rather than taking a
    // second place for the same thread.
    thread_way = Way::choosing;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    Way way = Way::stepped;
    uint32_t taken = traced_threads.load(std::memory_order_relaxed);
    while (taken < kTracedThreads) {
        if (traced_threads.compare_exchange_weak(taken, taken + 1, std::memory_order_relaxed)) {
            way = Way::traced;
            break;
        }
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread_way = way;
    return way;
}

int step_backtrace(void** buffer, int size) {
    ucontext_t context, room;
    Cursor cursor;
    if (!start_here(cursor, context, room)) return 0;
    int found = 0;
    while (found < size) {
        Word address;
        if (get_register(&cursor, kInstructionPointer, &address) != 0) break;
        buffer[found++] = reinterpret_cast<void*>(address);
        if (step(&cursor) <= 0) break;
    }
    return found;
}

uint32_t depth_to_signal_frame(const uintptr_t* frames, uint32_t depth) {
    for (uint32_t i = depth; i > 0; --i)
        if (is_signal_frame(frames[i - 1])) return i;
    return depth;
}

}  // namespace detail

namespace {

// The bytes of [low, high) that lie on the measured stack.
uint64_t measured_between(const OuterFrames& outer, uintptr_t low, uintptr_t high) {
    if (low < outer.low) low = outer.low;
    if (high > outer.high) high = outer.high;
    return high > low ? high - low : 0;
}

void add_outer(OuterFrames& outer, uint64_t ip, uint64_t bytes) {
    using sites_format::kMaxStackPeakOuter;
    uint32_t i = 0;
    while (i < outer.count && outer.entries[i].ip != ip) ++i;
    if (i == outer.count) {
        // Full: the last entry takes in every instruction that found no room.
        if (outer.count == kMaxStackPeakOuter) {
            i = kMaxStackPeakOuter - 1;
            outer.entries[i].ip = 0;
        } else {
            outer.entries[outer.count++] = {ip, 0, 0, 0};
        }
    }
    outer.entries[i].bytes += bytes;
    ++outer.entries[i].frames;
}

// Unwinds on past the frames kept, folding each frame by its instruction with the bytes
// it held (its caller's stack pointer less its own; the last one's, up to the measured
// stack's top). From the last kept frame, frames[max - 1], on.
void fold_outer_frames(Cursor& cursor, const sites_format::StackPeakFrame& last_kept,
                       uint32_t unwound, OuterFrames& outer) {
    uint64_t ip = last_kept.ip;
    uintptr_t sp = last_kept.sp;
    for (; unwound < sites_format::kMaxStackPeakUnwound && step(&cursor) > 0; ++unwound) {
        Word next_ip, next_sp;
        if (get_register(&cursor, kInstructionPointer, &next_ip) != 0 ||
            get_register(&cursor, kStackPointer, &next_sp) != 0)
            break;
        add_outer(outer, ip, measured_between(outer, sp, next_sp));
        ip = unwinder_abi::frame_address(next_ip);
        sp = next_sp;
    }
    add_outer(outer, ip, measured_between(outer, sp, outer.high));
}

}  // namespace

uint32_t capture_frames(sites_format::StackPeakFrame* frames, uint32_t max,
                        const void* signal_context, bool* cut, OuterFrames* outer) {
    if (cut != nullptr) *cut = false;
    if (outer != nullptr) outer->count = 0;
    if (detail::backtrace_function == nullptr) return 0;
    Cursor cursor;
    ucontext_t context, room;
    if (signal_context != nullptr) {
        if (init_local2 == nullptr) return 0;
        // libunwind's signature takes the context as writable; it only reads it.
        auto* interrupted = static_cast<ucontext_t*>(unwinder_context(signal_context, room));
        if (init_local2(&cursor, interrupted, kInitSignalFrame) != 0) return 0;
    } else if (!start_here(cursor, context, room)) {
        return 0;
    }
    uint32_t depth = 0;
    // Our frames on top of the program's are left out; bounded as capture() bounds them.
    for (uint32_t steps = 0; depth < max && steps < max + detail::kOwnFramesRoom; ++steps) {
        Word ip, sp;
        if (get_register(&cursor, kInstructionPointer, &ip) != 0 ||
            get_register(&cursor, kStackPointer, &sp) != 0)
            break;
        if (__builtin_expect(detail::is_collectors(ip), 0)) {
            // A call of ours a signal handler interrupted: its frames belong to the
            // interrupted call, which ends at the signal frame (detail::depth_to_signal_frame).
            for (uint32_t i = depth; i > 0; --i) {
                if (is_signal_frame(frames[i - 1].ip)) {
                    depth = i;
                    break;
                }
            }
        } else {
            frames[depth++] = {unwinder_abi::frame_address(ip), sp};
        }
        if (depth == max && outer != nullptr) {
            if (cut != nullptr) *cut = true;
            fold_outer_frames(cursor, frames[max - 1], steps + 1, *outer);
            return depth;
        }
        if (step(&cursor) <= 0) return depth;
    }
    if (cut != nullptr) *cut = depth == max;
    return depth;
}

namespace {
std::atomic<uint64_t> verified{0}, verified_recalled{0}, verified_resumed{0}, unwound_alone{0};
char summary[300];

// Standard error without stdio (a signal handler may be verifying): a line of addresses.
void write_stack(const char* title, const uintptr_t* frames, uint32_t depth) {
    char line[64];
    int length = snprintf(line, sizeof line, "memusage: %s (%u frames):", title, depth);
    if (length > 0) (void)!write(2, line, static_cast<size_t>(length));
    for (uint32_t i = 0; i < depth; ++i) {
        length = snprintf(line, sizeof line, " %#lx", static_cast<unsigned long>(frames[i]));
        if (length > 0) (void)!write(2, line, static_cast<size_t>(length));
    }
    (void)!write(2, "\n", 1);
}
}  // namespace

namespace detail {
void verify_stack(const uintptr_t* frames, uint32_t depth, uint32_t max, Taken taken) {
    if (taken == Taken::unwound) {
        unwound_alone.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    void* buffer[sites_format::kMaxDepth + kOwnFramesRoom];
    uintptr_t expected[sites_format::kMaxDepth];
    if (max > sites_format::kMaxDepth) max = sites_format::kMaxDepth;
    // libunwind's step-by-step unwind, the reference: its trace may hold rows of unloaded
    // code (code_was_unloaded).
    int found = step_backtrace(buffer, static_cast<int>(max + kOwnFramesRoom));
    uint32_t expected_depth = program_frames(buffer, found, expected, max);
    bool same = expected_depth == depth;
    for (uint32_t i = 0; same && i < depth; ++i) same = expected[i] == frames[i];
    if (same) {
        verified.fetch_add(1, std::memory_order_relaxed);
        if (taken == Taken::recalled) verified_recalled.fetch_add(1, std::memory_order_relaxed);
        if (taken == Taken::resumed) verified_resumed.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    static const char kDiffer[] =
        "memusage: MEMUSAGE_SITES_VERIFY: the walk along unwind rows and libunwind differ\n";
    (void)!write(2, kDiffer, sizeof kDiffer - 1);
    write_stack(taken == Taken::recalled  ? "recalled"
                : taken == Taken::resumed ? "walked to the last walk's frames"
                                          : "walked",
                frames, depth);
    write_stack("libunwind", expected, expected_depth);
    abort();
}
}  // namespace detail

void forget_unloaded_code() {
    detail::code_was_unloaded = true;
    row_walk::forget_rows();
    if (FlushCache flush = flush_cache.load(std::memory_order_acquire))
        flush(local_address_space, 0, 0);
}

const char* verify_summary() {
    if (!detail::verifying) return nullptr;
    snprintf(summary, sizeof summary,
             "sites verified: %llu stacks walked along unwind rows (%llu of them recalled "
             "from the stack memo, %llu with their outer frames from the thread's last walk), "
             "the same as libunwind's; %llu unwound by libunwind alone",
             static_cast<unsigned long long>(verified.load(std::memory_order_relaxed)),
             static_cast<unsigned long long>(verified_recalled.load(std::memory_order_relaxed)),
             static_cast<unsigned long long>(verified_resumed.load(std::memory_order_relaxed)),
             static_cast<unsigned long long>(unwound_alone.load(std::memory_order_relaxed)));
    return summary;
}

bool load(bool verify) {
    find_code_around(reinterpret_cast<const void*>(&load), detail::own_code_start,
                     detail::own_code_end);
    if (!unwinder_abi::kSupported) return false;
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return false;
    auto backtrace = reinterpret_cast<detail::Backtrace>(dlsym(library, "unw_backtrace"));
    auto get_accessors =
        reinterpret_cast<GetAccessors>(dlsym(library, unwinder_abi::kGetAccessors));
    auto* local_space = static_cast<void**>(dlsym(library, unwinder_abi::kLocalAddressSpace));
    // Where unw_getcontext is inline assembly, the C library's getcontext fills the same
    // ucontext_t.
    const char* get_context_name = unwinder_abi::kGetContext;
    get_context = get_context_name == nullptr
                      ? reinterpret_cast<GetContext>(&getcontext)
                      : reinterpret_cast<GetContext>(dlsym(library, get_context_name));
    init_local = reinterpret_cast<InitLocal>(dlsym(library, unwinder_abi::kInitLocal));
    init_local2 = unwinder_abi::kUnwindsSignalContexts
                      ? reinterpret_cast<InitLocal2>(dlsym(library, unwinder_abi::kInitLocal2))
                      : nullptr;
    step = reinterpret_cast<Step>(dlsym(library, unwinder_abi::kStep));
    get_register = reinterpret_cast<GetRegister>(dlsym(library, unwinder_abi::kGetRegister));
    // Without its accessors libunwind would validate through its pipe: no stacks rather
    // than the program's files touched.
    if (backtrace == nullptr || get_accessors == nullptr || local_space == nullptr) return false;
    if (get_context == nullptr || init_local == nullptr || step == nullptr ||
        get_register == nullptr)
        return false;
    int were_free[2] = {-1, -1};
    lowest_free_descriptors(were_free);
    // libunwind reads its ways of unwinding from the environment as it initialises; the
    // program's own choice stays, and the program's environment is left as it was.
    const char* methods = unwinder_abi::kMethodsVariable;
    bool choose_methods = methods != nullptr && getenv(methods) == nullptr &&
                          setenv(methods, unwinder_abi::kMethods, 0) == 0;
    Accessors* accessors = get_accessors(*local_space);  // initialises libunwind
    if (choose_methods) unsetenv(methods);
    if (accessors == nullptr || accessors->access_mem == nullptr) return false;
    if (accessors->access_mem != read_memory) {
        libunwind_access_memory = accessors->access_mem;
        accessors->access_mem = read_memory;
    }
    if (were_free[1] >= 0) close_validation_pipe(were_free);
    find_code_around(reinterpret_cast<const void*>(backtrace), detail::unwinder_code_start,
                     detail::unwinder_code_end);
    local_address_space = *local_space;
    flush_cache.store(reinterpret_cast<FlushCache>(dlsym(library, unwinder_abi::kFlushCache)),
                      std::memory_order_release);
    detail::backtrace_function = backtrace;
    detail::walks_rows = row_walk::start(reinterpret_cast<void*>(init_local),
                                         dlsym(library, unwinder_abi::kRegStatesIterate));
    detail::verifying = verify;
    return true;
}

}  // namespace memusage::unwind
