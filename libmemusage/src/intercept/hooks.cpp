// SPDX-License-Identifier: MIT
// The exported functions: each counts through the thread's CountingScope when it
// may, and otherwise finds out why not (nested in a hook, not profiling, still
// starting, past the summary) and does the right uncounted thing. Nothing else
// happens here.
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <type_traits>

#include "heap/tracked_heap.h"
#include "intercept/collector.h"
#include "intercept/ending_signals.h"
#include "intercept/sampler.h"
#include "intercept/thread_start.h"
#include "intercept/traced_maps.h"
#include "platform/originals.h"
#include "platform/pages.h"
#include "publish/publisher.h"

#define MEMUSAGE_EXPORT extern "C" __attribute__((visibility("default")))

using namespace memusage;
using collector::CountingScope;
using collector::State;

namespace {

// Our headers are never looked for: we are invisible to this process, or still looking
// up the originals (then the bootstrap arena serves what they cannot yet).
bool untracked(State s) { return s == State::passthrough || s == State::initializing; }

// A call that is not counted (nested in one of ours, as when the next allocator in line
// builds its malloc on aligned_alloc and so calls back into us; or not profiling, still
// starting, past the summary) gets the next allocator's block as it is, without our
// header. The chained allocator gets back the block it asked for, and the block passes
// through free as one we did not hand out. Until the originals are known, the bootstrap
// arena serves.
void* allocate_uncounted(size_t size) {
    return original::malloc != nullptr ? original::malloc(size) : bootstrap::allocate(size);
}

// The arena's blocks are few and tiny (dlsym's): moving one out is rare.
void* move_out_of_arena(void* block, size_t size) {
    if (size == 0) return nullptr;
    void* moved = allocate_uncounted(size);
    if (moved != nullptr) {
        size_t old_size = bootstrap::size_of(block);
        memcpy(moved, block, old_size < size ? old_size : size);
    }
    return moved;
}

bool tracing_maps() {
    return collector::config.trace_mmap && collector::current_state() == State::active;
}

// Offsets are 64-bit on every machine: 32-bit programs map large files through mmap64.
void* map_untraced(void* address, size_t length, int protection, int flags, int fd,
                   off64_t offset) {
    if (original::mmap64 == nullptr)  // dlsym itself mapping memory before we know mmap
        return map_by_system_call(address, length, protection, flags, fd, offset);
    return original::mmap64(address, length, protection, flags, fd, offset);
}

void* map(void* address, size_t length, int protection, int flags, int fd, off64_t offset) {
    if (tracing_maps()) {
        CountingScope scope;
        if (Counting* counting = scope.counting())
            return traced::map(*counting, address, length, protection, flags, fd, offset);
    }
    return map_untraced(address, length, protection, flags, fd, offset);
}

void* aligned_allocation(void* (*original_function)(size_t, size_t), size_t alignment,
                         size_t size) {
    CountingScope scope;
    if (scope.counting() != nullptr)
        return tracked::allocate_aligned(*scope.counting(), alignment, size);
    return original_function != nullptr ? original_function(alignment, size)
                                        : bootstrap::allocate(size, alignment);
}

// A profiling tick must not arrive while the new image still has SIGPROF's default
// action, which is death: sampling pauses for the exec, and resumes if it fails.
template <typename Exec>
int with_sampling_paused(Exec exec) {
    bool was_sampling = sampler::pause_for_exec();
    publish::before_exec();
    int result = exec();
    int saved_errno = errno;
    publish::after_failed_exec();
    sampler::resume_after_failed_exec(was_sampling);
    errno = saved_errno;
    return result;
}

// execl and friends: the arguments up to the null one, as an argv array. The pages
// come from the kernel: this runs in the program's exec path, not the heap's.
class ArgumentList {
  public:
    ArgumentList(const char* first, va_list* rest) {
        va_list counting;
        va_copy(counting, *rest);
        size_t count = 1;
        while (va_arg(counting, char*) != nullptr) ++count;
        va_end(counting);
        bytes_ = (count + 1) * sizeof(char*);
        argv_ = static_cast<char**>(allocate_pages(bytes_));
        if (argv_ == nullptr) return;
        argv_[0] = const_cast<char*>(first);
        for (size_t i = 1; i <= count; ++i) argv_[i] = va_arg(*rest, char*);
    }
    ~ArgumentList() {
        if (argv_ != nullptr) free_pages(argv_, bytes_);
    }
    ArgumentList(const ArgumentList&) = delete;
    ArgumentList& operator=(const ArgumentList&) = delete;

    // Null when there was no memory for it (errno says so).
    char** argv() const { return argv_; }

  private:
    char** argv_ = nullptr;
    size_t bytes_ = 0;
};

int exec_path(const char* path, char* const argv[], char* const envp[]) {
    return with_sampling_paused([&] { return original::execve(path, argv, envp); });
}

int exec_searching(const char* file, char* const argv[]) {
    return with_sampling_paused([&] { return original::execvp(file, argv); });
}

// The program sets a signal's disposition: SIGPROF, or a fault signal, is its own now.
void program_takes_signal(int signal_number) {
    if (collector::current_state() != State::active) return;
    sampler::yield_to_program(signal_number);
    ending_signals::release_to_program(signal_number);
}

// Our handler stands where the program set nothing: it reads the default back.
bool ours(int signal_number) {
    return ending_signals::holds(signal_number) || sampler::holds(signal_number);
}

// The program blocks a fault our handler holds, now (a mask) or whenever its handler
// runs (the handler's mask): the data file is kept complete without that handler.
void note_blocked_faults(bool blocked) {
    if (blocked) collector::program_blocks_faults();
}

// sigaction and __sigaction: the program's action goes in as it is, and what it reads
// back is what it set, or the default where only ours stands.
template <typename Original>
int set_action(Original original_function, int signal_number, const struct sigaction* action,
               struct sigaction* old_action) {
    collector::current_state();  // the originals are known
    bool ours_before = ours(signal_number);
    if (action != nullptr) {
        program_takes_signal(signal_number);
        bool handler = (action->sa_flags & SA_SIGINFO) != 0 ||
                       (action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN);
        note_blocked_faults(handler && ending_signals::blocks_held_fault(&action->sa_mask));
    }
    int result = original_function(signal_number, action, old_action);
    if (result == 0 && old_action != nullptr && ours_before) {
        memset(old_action, 0, sizeof *old_action);
        old_action->sa_handler = SIG_DFL;
    }
    return result;
}

// signal() and its kin: the handler they say was there is the default where ours was.
template <typename Original>
sighandler_t set_handler(Original original_function, int signal_number, sighandler_t handler) {
    collector::current_state();
    bool ours_before = ours(signal_number);
    program_takes_signal(signal_number);
    sighandler_t previous = original_function(signal_number, handler);
    return ours_before && previous != SIG_ERR && previous != SIG_HOLD ? SIG_DFL : previous;
}

// True when `mask`, set with `how`, blocks a fault our handler holds.
bool blocks_held_fault(int how, const sigset_t* mask) {
    collector::current_state();  // the originals are known
    return mask != nullptr && how != SIG_UNBLOCK && ending_signals::blocks_held_fault(mask);
}

}  // namespace

namespace {

// A counted call's short ways (collector::begin_short_call_or_sampled): `counted` with the
// short way's counting, or the sampled short way's while only sampled sites are on; else
// `general`, out of line. Inlined into the hooks, as the heap functions are.
template <typename Counted, typename General>
__attribute__((always_inline)) inline auto short_or_general(Counted counted, General general) {
    collector::ShortCall call = collector::begin_short_call_or_sampled();
    if (__builtin_expect(call.log == nullptr, 0)) return general();
    if (__builtin_expect(call.way == collector::ShortWay::counting, 1)) {
        if constexpr (std::is_void_v<decltype(general())>) {
            counted(ShortCounting(collector::recorder, *call.log));
            return collector::end_short_call(call.log);
        } else {
            auto result = counted(ShortCounting(collector::recorder, *call.log));
            collector::end_short_call(call.log);
            return result;
        }
    }
    if constexpr (std::is_void_v<decltype(general())>) {
        counted(SampledCounting(collector::recorder, *call.log));
        return collector::end_short_call(call.log);
    } else {
        auto result = counted(SampledCounting(collector::recorder, *call.log));
        collector::end_short_call(call.log);
        return result;
    }
}

// malloc's and free's general ways: a thread's first call, a signal handler's, calls that
// must not count, and every call while more than counting (or sampled sites) is on. Out of
// line, so that the short ways in the hook carry none of the general way's state.
__attribute__((noinline)) void* allocate_general(size_t size) {
    CountingScope scope;
    if (__builtin_expect(scope.counting() != nullptr, 1))
        return tracked::allocate(*scope.counting(), size);
    return allocate_uncounted(size);
}

__attribute__((noinline)) void release_general(void* block) {
    CountingScope scope;
    if (__builtin_expect(scope.counting() != nullptr, 1))
        return tracked::release(*scope.counting(), block);
    if (untracked(collector::current_state())) {
        if (block != nullptr && original::free != nullptr) original::free(block);
        return;
    }
    tracked::release(Uncounted{}, block);
}

}  // namespace

MEMUSAGE_EXPORT void* malloc(size_t size) {
    return short_or_general([&](auto counter) { return tracked::allocate(counter, size); },
                            [&] { return allocate_general(size); });
}

MEMUSAGE_EXPORT void free(void* block) {
    if (__builtin_expect(bootstrap::owns(block), 0)) return;
    short_or_general([&](auto counter) { tracked::release(counter, block); },
                     [&] { release_general(block); });
}

namespace {

// calloc's and realloc's general ways, as malloc's.
__attribute__((noinline)) void* allocate_zeroed_general(size_t count, size_t size) {
    CountingScope scope;
    if (scope.counting() != nullptr)
        return tracked::allocate_zeroed(*scope.counting(), count, size);
    if (original::calloc != nullptr) return original::calloc(count, size);
    size_t bytes;
    return __builtin_mul_overflow(count, size, &bytes) ? nullptr : bootstrap::allocate(bytes);
}

__attribute__((noinline)) void* reallocate_general(void* block, size_t size) {
    CountingScope scope;
    if (scope.counting() != nullptr) return tracked::reallocate(*scope.counting(), block, size);
    if (original::realloc == nullptr) return bootstrap::allocate(size);
    if (block == nullptr || untracked(collector::current_state()))
        return original::realloc(block, size);
    return tracked::reallocate(Uncounted{}, block, size);  // one of ours keeps its header
}

}  // namespace

MEMUSAGE_EXPORT void* calloc(size_t count, size_t size) {
    return short_or_general(
        [&](auto counter) { return tracked::allocate_zeroed(counter, count, size); },
        [&] { return allocate_zeroed_general(count, size); });
}

MEMUSAGE_EXPORT void* realloc(void* block, size_t size) {
    if (__builtin_expect(bootstrap::owns(block), 0)) return move_out_of_arena(block, size);
    return short_or_general([&](auto counter) { return tracked::reallocate(counter, block, size); },
                            [&] { return reallocate_general(block, size); });
}

MEMUSAGE_EXPORT void* reallocarray(void* block, size_t count, size_t size) {
    size_t bytes;
    if (bootstrap::owns(block) && !__builtin_mul_overflow(count, size, &bytes))
        return move_out_of_arena(block, bytes);
    CountingScope scope;
    if (scope.counting() != nullptr)
        return tracked::reallocate_array(*scope.counting(), block, count, size);
    if (block == nullptr || untracked(collector::current_state()))
        return original::reallocarray(block, count, size);
    return tracked::reallocate_array(Uncounted{}, block, count, size);
}

MEMUSAGE_EXPORT size_t malloc_usable_size(void* block) {
    if (bootstrap::owns(block)) return bootstrap::size_of(block);
    if (untracked(collector::current_state()))
        return original::malloc_usable_size != nullptr ? original::malloc_usable_size(block) : 0;
    return tracked::usable_size(block);
}

MEMUSAGE_EXPORT void* memalign(size_t alignment, size_t size) {
    return aligned_allocation(original::memalign, alignment, size);
}

// The same function as memalign in glibc 2.36.
MEMUSAGE_EXPORT void* aligned_alloc(size_t alignment, size_t size) {
    return aligned_allocation(original::aligned_alloc, alignment, size);
}

MEMUSAGE_EXPORT int posix_memalign(void** result, size_t alignment, size_t size) {
    CountingScope scope;
    if (scope.counting() != nullptr)
        return tracked::posix_allocate_aligned(*scope.counting(), result, alignment, size);
    return original::posix_memalign(result, alignment, size);
}

MEMUSAGE_EXPORT void* valloc(size_t size) {
    CountingScope scope;
    if (scope.counting() != nullptr)
        return tracked::allocate_page_aligned(*scope.counting(), size, false);
    return original::valloc(size);
}

MEMUSAGE_EXPORT void* pvalloc(size_t size) {
    CountingScope scope;
    if (scope.counting() != nullptr)
        return tracked::allocate_page_aligned(*scope.counting(), size, true);
    return original::pvalloc(size);
}

MEMUSAGE_EXPORT void* mmap(void* address, size_t length, int protection, int flags, int fd,
                           off_t offset) {
    return map(address, length, protection, flags, fd, offset);
}

MEMUSAGE_EXPORT void* mmap64(void* address, size_t length, int protection, int flags, int fd,
                             off64_t offset) {
    return map(address, length, protection, flags, fd, offset);
}

MEMUSAGE_EXPORT void* mremap(void* old_address, size_t old_length, size_t new_length, int flags,
                             ...) {
    void* new_address = nullptr;
    if ((flags & MREMAP_FIXED) != 0) {
        va_list args;
        va_start(args, flags);
        new_address = va_arg(args, void*);
        va_end(args);
    }
    if (tracing_maps()) {
        CountingScope scope;
        if (Counting* counting = scope.counting())
            return traced::remap(*counting, old_address, old_length, new_length, flags,
                                 new_address);
    }
    return original::mremap(old_address, old_length, new_length, flags, new_address);
}

MEMUSAGE_EXPORT int munmap(void* address, size_t length) {
    if (tracing_maps()) {
        CountingScope scope;
        if (Counting* counting = scope.counting()) return traced::unmap(*counting, address, length);
    }
    if (original::munmap == nullptr) return static_cast<int>(syscall(SYS_munmap, address, length));
    return original::munmap(address, length);
}

MEMUSAGE_EXPORT int mprotect(void* address, size_t length, int protection) {
    if (tracing_maps()) {
        CountingScope scope;
        if (Counting* counting = scope.counting())
            return traced::protect(*counting, address, length, protection);
    }
    if (original::mprotect == nullptr)
        return static_cast<int>(syscall(SYS_mprotect, address, length, protection));
    return original::mprotect(address, length, protection);
}

// Every way of setting a signal's disposition comes here first: a program that sets
// its own SIGPROF disposition gets SIGPROF to itself, and one that sets a fault
// signal's has its handler (or the default death) instead of ours. What it reads back
// is never ours.
MEMUSAGE_EXPORT int sigaction(int signal_number, const struct sigaction* action,
                              struct sigaction* old_action) {
    return set_action(original::sigaction, signal_number, action, old_action);
}

MEMUSAGE_EXPORT int __sigaction(int signal_number, const struct sigaction* action,
                                struct sigaction* old_action) noexcept {
    return set_action(original::__sigaction, signal_number, action, old_action);
}

MEMUSAGE_EXPORT sighandler_t signal(int signal_number, sighandler_t handler) {
    return set_handler(original::signal, signal_number, handler);
}

MEMUSAGE_EXPORT sighandler_t bsd_signal(int signal_number, sighandler_t handler) noexcept {
    return set_handler(original::bsd_signal, signal_number, handler);
}

MEMUSAGE_EXPORT sighandler_t ssignal(int signal_number, sighandler_t handler) {
    return set_handler(original::ssignal, signal_number, handler);
}

// One-shot handlers (SA_RESETHAND): SIGPROF's next tick would be death.
MEMUSAGE_EXPORT sighandler_t sysv_signal(int signal_number, sighandler_t handler) {
    return set_handler(original::sysv_signal, signal_number, handler);
}

// What `signal` is in programs built for strict X/Open.
MEMUSAGE_EXPORT sighandler_t __sysv_signal(int signal_number, sighandler_t handler) {
    return set_handler(original::__sysv_signal, signal_number, handler);
}

// SIG_HOLD only blocks the signal, leaving its disposition as it is.
MEMUSAGE_EXPORT sighandler_t sigset(int signal_number, sighandler_t disposition) {
    collector::current_state();  // the originals are known
    if (disposition == SIG_HOLD) {
        sigset_t held;
        sigemptyset(&held);
        sigaddset(&held, signal_number);
        note_blocked_faults(ending_signals::blocks_held_fault(&held));
        sighandler_t previous = original::sigset(signal_number, disposition);
        return ours(signal_number) && previous != SIG_ERR && previous != SIG_HOLD ? SIG_DFL
                                                                                  : previous;
    }
    return set_handler(original::sigset, signal_number, disposition);
}

MEMUSAGE_EXPORT int sigignore(int signal_number) {
    program_takes_signal(signal_number);
    return original::sigignore(signal_number);
}

// glibc 2.34's fork without the fork handlers, async-signal-safe whatever the threads:
// its child needs the repair all the same, or it writes into its parent's file. Looked
// up apart from the originals, which must all exist.
namespace {
pid_t (*next_underscore_fork)() = nullptr;
__attribute__((constructor)) void find_underscore_fork() {
    next_underscore_fork = reinterpret_cast<pid_t (*)()>(dlsym(RTLD_NEXT, "_Fork"));
}
}  // namespace

MEMUSAGE_EXPORT pid_t _Fork() {
    if (next_underscore_fork == nullptr) find_underscore_fork();  // before our constructor
    if (next_underscore_fork == nullptr) {
        errno = ENOSYS;
        return -1;
    }
    pid_t pid = next_underscore_fork();
    if (pid == 0 && collector::current_state() == State::active) {
        int saved_errno = errno;
        collector::repair_in_forked_child();
        errno = saved_errno;
    }
    return pid;
}

// The masks are the program's, as it sets them. Blocking a fault our handler holds
// takes that handler away (a blocked fault kills without it): the data file is brought
// up to date first, and kept complete from then on.
MEMUSAGE_EXPORT int sigprocmask(int how, const sigset_t* mask, sigset_t* old_mask) {
    note_blocked_faults(blocks_held_fault(how, mask));
    return original::sigprocmask(how, mask, old_mask);
}

MEMUSAGE_EXPORT int pthread_sigmask(int how, const sigset_t* mask, sigset_t* old_mask) {
    note_blocked_faults(blocks_held_fault(how, mask));
    return original::pthread_sigmask(how, mask, old_mask);
}

MEMUSAGE_EXPORT int sigblock(int mask) {
    collector::current_state();  // the originals are known
    note_blocked_faults(ending_signals::blocks_held_fault(mask));
    return original::sigblock(mask);
}

MEMUSAGE_EXPORT int sigsetmask(int mask) {
    collector::current_state();
    note_blocked_faults(ending_signals::blocks_held_fault(mask));
    return original::sigsetmask(mask);
}

MEMUSAGE_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
    return exec_path(path, argv, envp);
}

MEMUSAGE_EXPORT int execv(const char* path, char* const argv[]) {
    return exec_path(path, argv, environ);
}

MEMUSAGE_EXPORT int execvp(const char* file, char* const argv[]) {
    return exec_searching(file, argv);
}

MEMUSAGE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
    return with_sampling_paused([&] { return original::execvpe(file, argv, envp); });
}

MEMUSAGE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
    return with_sampling_paused([&] { return original::fexecve(fd, argv, envp); });
}

MEMUSAGE_EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[],
                             int flags) {
    return with_sampling_paused([&] { return original::execveat(dirfd, path, argv, envp, flags); });
}

MEMUSAGE_EXPORT int execl(const char* path, const char* arg, ...) {
    va_list rest;
    va_start(rest, arg);
    ArgumentList arguments(arg, &rest);
    va_end(rest);
    return arguments.argv() != nullptr ? exec_path(path, arguments.argv(), environ) : -1;
}

MEMUSAGE_EXPORT int execlp(const char* file, const char* arg, ...) {
    va_list rest;
    va_start(rest, arg);
    ArgumentList arguments(arg, &rest);
    va_end(rest);
    return arguments.argv() != nullptr ? exec_searching(file, arguments.argv()) : -1;
}

MEMUSAGE_EXPORT int execle(const char* path, const char* arg, ...) {
    va_list rest;
    va_start(rest, arg);
    ArgumentList arguments(arg, &rest);
    char* const* envp = va_arg(rest, char* const*);
    va_end(rest);
    return arguments.argv() != nullptr ? exec_path(path, arguments.argv(), envp) : -1;
}

// Every thread the program starts enters its start routine through ours, which measures
// its stack from there. The collector's own threads start as they are.
MEMUSAGE_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attributes,
                                   void* (*routine)(void*), void* argument) {
    if (collector::current_state() != State::active || collector::starting_own_thread())
        return original::pthread_create(thread, attributes, routine, argument);
    return thread_start::create(original::pthread_create, thread, attributes, routine, argument);
}

// C11's threads too: the C library starts them without passing through pthread_create by
// name.
MEMUSAGE_EXPORT int thrd_create(thrd_t* thread, thrd_start_t routine, void* argument) {
    State state = collector::current_state();
    if (original::thrd_create == nullptr) return thrd_error;  // a C library before C11 threads
    if (state != State::active || collector::starting_own_thread())
        return original::thrd_create(thread, routine, argument);
    return thread_start::create_c11(original::thrd_create, thread, routine, argument);
}
