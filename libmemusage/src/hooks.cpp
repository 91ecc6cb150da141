// The exported functions: each finds out what state the collector is in, keeps out
// of the way when it must, and otherwise forwards to the tracked heap or the traced
// maps with the call's counting. Nothing else happens here.
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "originals.h"
#include "sampler.h"
#include "traced_maps.h"
#include "tracked_heap.h"

#define MEMUSAGE_EXPORT extern "C" __attribute__((visibility("default")))

using namespace memusage;
using collector::CountedCall;
using collector::State;

namespace {

// Neither counted nor given our header: we are invisible to this process, or still
// looking up the originals (then the bootstrap arena serves what they cannot yet).
bool untracked(State s) { return s == State::passthrough || s == State::initializing; }

// The arena's blocks are few and tiny (dlsym's): moving one out is rare.
void* move_out_of_arena(State s, void* block, size_t size) {
    if (size == 0) return nullptr;
    void* moved = untracked(s) ? (original::malloc != nullptr ? original::malloc(size)
                                                              : bootstrap::allocate(size))
                               : tracked::allocate(nullptr, size);
    if (moved != nullptr) {
        size_t old_size = bootstrap::size_of(block);
        memcpy(moved, block, old_size < size ? old_size : size);
    }
    return moved;
}

void* mmap_hook(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
    State s = collector::current_state();
    if (s == State::active && collector::config.trace_mmap) {
        CountedCall call(s);
        if (call.counting() != nullptr)
            return traced::map(*call.counting(), address, length, protection, flags, fd, offset);
    }
    if (original::mmap == nullptr)  // dlsym itself mapping memory before we know mmap
        return reinterpret_cast<void*>(
            syscall(SYS_mmap, address, length, protection, flags, fd, offset));
    return original::mmap(address, length, protection, flags, fd, offset);
}

}  // namespace

MEMUSAGE_EXPORT void* malloc(size_t size) {
    State s = collector::current_state();
    if (__builtin_expect(untracked(s), 0))
        return original::malloc != nullptr ? original::malloc(size) : bootstrap::allocate(size);
    CountedCall call(s);
    return tracked::allocate(call.counting(), size);
}

MEMUSAGE_EXPORT void free(void* block) {
    if (__builtin_expect(bootstrap::owns(block), 0)) return;
    State s = collector::current_state();
    if (__builtin_expect(untracked(s), 0)) {
        if (block != nullptr && original::free != nullptr) original::free(block);
        return;
    }
    CountedCall call(s);
    tracked::release(call.counting(), block);
}

MEMUSAGE_EXPORT void* calloc(size_t count, size_t size) {
    State s = collector::current_state();
    if (__builtin_expect(untracked(s), 0)) {
        if (original::calloc != nullptr) return original::calloc(count, size);
        size_t bytes;
        return __builtin_mul_overflow(count, size, &bytes) ? nullptr : bootstrap::allocate(bytes);
    }
    CountedCall call(s);
    return tracked::allocate_zeroed(call.counting(), count, size);
}

MEMUSAGE_EXPORT void* realloc(void* block, size_t size) {
    State s = collector::current_state();
    if (__builtin_expect(bootstrap::owns(block), 0)) return move_out_of_arena(s, block, size);
    if (__builtin_expect(untracked(s), 0))
        return original::realloc != nullptr ? original::realloc(block, size)
                                            : bootstrap::allocate(size);
    CountedCall call(s);
    return tracked::reallocate(call.counting(), block, size);
}

MEMUSAGE_EXPORT void* reallocarray(void* block, size_t count, size_t size) {
    State s = collector::current_state();
    if (untracked(s) || bootstrap::owns(block)) {
        size_t bytes;
        if (__builtin_mul_overflow(count, size, &bytes)) {
            errno = ENOMEM;
            return nullptr;
        }
        return realloc(block, bytes);
    }
    CountedCall call(s);
    return tracked::reallocate_array(call.counting(), block, count, size);
}

MEMUSAGE_EXPORT size_t malloc_usable_size(void* block) {
    if (bootstrap::owns(block)) return bootstrap::size_of(block);
    State s = collector::current_state();
    if (untracked(s))
        return original::malloc_usable_size != nullptr ? original::malloc_usable_size(block) : 0;
    return tracked::usable_size(block);
}

MEMUSAGE_EXPORT void* memalign(size_t alignment, size_t size) {
    State s = collector::current_state();
    if (untracked(s))
        return original::memalign != nullptr ? original::memalign(alignment, size)
                                             : bootstrap::allocate(size, alignment);
    CountedCall call(s);
    return tracked::allocate_aligned(call.counting(), alignment, size);
}

MEMUSAGE_EXPORT void* aligned_alloc(size_t alignment, size_t size) {
    State s = collector::current_state();
    if (untracked(s))
        return original::aligned_alloc != nullptr ? original::aligned_alloc(alignment, size)
                                                  : bootstrap::allocate(size, alignment);
    CountedCall call(s);
    return tracked::allocate_aligned(call.counting(), alignment, size);
}

MEMUSAGE_EXPORT int posix_memalign(void** result, size_t alignment, size_t size) {
    State s = collector::current_state();
    if (untracked(s)) {
        if (original::posix_memalign != nullptr)
            return original::posix_memalign(result, alignment, size);
        *result = bootstrap::allocate(size, alignment);
        return *result != nullptr ? 0 : ENOMEM;
    }
    CountedCall call(s);
    return tracked::posix_allocate_aligned(call.counting(), result, alignment, size);
}

MEMUSAGE_EXPORT void* valloc(size_t size) {
    State s = collector::current_state();
    if (untracked(s)) return original::valloc != nullptr ? original::valloc(size) : nullptr;
    CountedCall call(s);
    return tracked::allocate_page_aligned(call.counting(), size, false);
}

MEMUSAGE_EXPORT void* pvalloc(size_t size) {
    State s = collector::current_state();
    if (untracked(s)) return original::pvalloc != nullptr ? original::pvalloc(size) : nullptr;
    CountedCall call(s);
    return tracked::allocate_page_aligned(call.counting(), size, true);
}

MEMUSAGE_EXPORT void* mmap(void* address, size_t length, int protection, int flags, int fd,
                           off_t offset) {
    return mmap_hook(address, length, protection, flags, fd, offset);
}

MEMUSAGE_EXPORT void* mmap64(void* address, size_t length, int protection, int flags, int fd,
                             off_t offset) {
    return mmap_hook(address, length, protection, flags, fd, offset);
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
    State s = collector::current_state();
    if (s == State::active && collector::config.trace_mmap) {
        CountedCall call(s);
        if (call.counting() != nullptr)
            return traced::remap(*call.counting(), old_address, old_length, new_length, flags,
                                 new_address);
    }
    return original::mremap(old_address, old_length, new_length, flags, new_address);
}

MEMUSAGE_EXPORT int munmap(void* address, size_t length) {
    State s = collector::current_state();
    if (s == State::active && collector::config.trace_mmap) {
        CountedCall call(s);
        if (call.counting() != nullptr) return traced::unmap(*call.counting(), address, length);
    }
    if (original::munmap == nullptr) return static_cast<int>(syscall(SYS_munmap, address, length));
    return original::munmap(address, length);
}

// A program that sets its own SIGPROF disposition gets SIGPROF to itself.
MEMUSAGE_EXPORT int sigaction(int signal_number, const struct sigaction* action,
                              struct sigaction* old_action) {
    if (collector::current_state() == State::active && action != nullptr)
        sampler::yield_to_program(signal_number);
    return original::sigaction(signal_number, action, old_action);
}

MEMUSAGE_EXPORT sighandler_t signal(int signal_number, sighandler_t handler) {
    if (collector::current_state() == State::active) sampler::yield_to_program(signal_number);
    return original::signal(signal_number, handler);
}
