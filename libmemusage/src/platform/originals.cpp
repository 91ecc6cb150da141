// SPDX-License-Identifier: MIT
#include "platform/originals.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include <atomic>
#include <cstdint>

namespace memusage::original {
namespace {

// The version a program links each function by (libc's default for it). A debugging
// malloc preloaded after us, libc_malloc_debug.so, defines its functions under that
// version only, and dlsym's unversioned lookup skips them: MALLOC_CHECK_ and mtrace would
// silently do nothing. Each architecture's glibc starts at its own base version (the
// version of its first port); functions added later carry the version they came with,
// unless they came before the port (readelf --dyn-syms on each libc.so.6).
struct NewerThanTheBase {
    const char* name;
    const char* version;
};
#if defined(__x86_64__)
constexpr const char* kBaseVersion = "GLIBC_2.2.5";
constexpr NewerThanTheBase kNewerThanTheBase[] = {
    {"aligned_alloc", "GLIBC_2.16"}, {"reallocarray", "GLIBC_2.26"},
    {"execvpe", "GLIBC_2.11"},       {"pthread_sigmask", "GLIBC_2.32"},
    {"execveat", "GLIBC_2.34"},      {"thrd_create", "GLIBC_2.34"}};
#elif defined(__i386__)
constexpr const char* kBaseVersion = "GLIBC_2.0";
constexpr NewerThanTheBase kNewerThanTheBase[] = {
    {"mmap64", "GLIBC_2.1"},           {"posix_memalign", "GLIBC_2.2"},
    {"sysv_signal", "GLIBC_2.1"},      {"sigset", "GLIBC_2.1"},
    {"sigignore", "GLIBC_2.1"},        {"aligned_alloc", "GLIBC_2.16"},
    {"reallocarray", "GLIBC_2.26"},    {"execvpe", "GLIBC_2.11"},
    {"pthread_sigmask", "GLIBC_2.32"}, {"execveat", "GLIBC_2.34"},
    {"pthread_create", "GLIBC_2.1"},  // GLIBC_2.0's is the old one, for old attributes
    {"thrd_create", "GLIBC_2.34"}};
#elif defined(__arm__)
constexpr const char* kBaseVersion = "GLIBC_2.4";
constexpr NewerThanTheBase kNewerThanTheBase[] = {
    {"aligned_alloc", "GLIBC_2.16"}, {"reallocarray", "GLIBC_2.26"},
    {"execvpe", "GLIBC_2.11"},       {"pthread_sigmask", "GLIBC_2.32"},
    {"execveat", "GLIBC_2.34"},      {"thrd_create", "GLIBC_2.34"}};
#elif defined(__aarch64__)
constexpr const char* kBaseVersion = "GLIBC_2.17";
constexpr NewerThanTheBase kNewerThanTheBase[] = {{"reallocarray", "GLIBC_2.26"},
                                                  {"pthread_sigmask", "GLIBC_2.32"},
                                                  {"execveat", "GLIBC_2.34"},
                                                  {"thrd_create", "GLIBC_2.34"}};
#elif defined(__riscv) && __riscv_xlen == 64
constexpr const char* kBaseVersion = "GLIBC_2.27";
constexpr NewerThanTheBase kNewerThanTheBase[] = {
    {"pthread_sigmask", "GLIBC_2.32"}, {"execveat", "GLIBC_2.34"}, {"thrd_create", "GLIBC_2.34"}};
#else
// Another machine: the lookup stays unversioned (debugging mallocs are then skipped).
constexpr const char* kBaseVersion = nullptr;
constexpr NewerThanTheBase kNewerThanTheBase[] = {{"", nullptr}};
#endif

const char* linked_version(const char* name) {
    for (const auto& function : kNewerThanTheBase)
        if (strcmp(function.name, name) == 0) return function.version;
    return kBaseVersion;
}

link_map* object_of(void* function) {
    Dl_info info;
    void* object = nullptr;
    if (dladdr1(function, &info, &object, RTLD_DL_LINKMAP) == 0) return nullptr;
    return static_cast<link_map*>(object);
}

// True when `first` comes before `second` in the order the dynamic linker searches.
bool searched_before(link_map* first, link_map* second) {
    if (first == nullptr || second == nullptr || first == second) return false;
    for (link_map* object = first->l_next; object != nullptr; object = object->l_next)
        if (object == second) return true;
    return false;
}

// What the program would have called without us: the first definition after us that
// its versioned reference binds to. The versioned lookup finds libc_malloc_debug.so's;
// it skips a chained allocator's unversioned one, which the plain lookup finds. Whichever
// comes first in the search order is the one.
void* next_definition(const char* name) {
    void* unversioned = dlsym(RTLD_NEXT, name);
    const char* version = linked_version(name);
    void* versioned = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : nullptr;
    if (versioned == nullptr || versioned == unversioned) return unversioned;
    if (unversioned == nullptr) return versioned;
    return searched_before(object_of(versioned), object_of(unversioned)) ? versioned : unversioned;
}

}  // namespace

bool resolve() {
    bool found = true;
#define MEMUSAGE_RESOLVE_ORIGINAL(name)                                 \
    name = reinterpret_cast<decltype(&::name)>(next_definition(#name)); \
    found = found && (name) != nullptr;
#define MEMUSAGE_RESOLVE_OPTIONAL(name) \
    name = reinterpret_cast<decltype(&::name)>(next_definition(#name));
    MEMUSAGE_HOOKED_FUNCTIONS(MEMUSAGE_RESOLVE_ORIGINAL)
    MEMUSAGE_OPTIONAL_FUNCTIONS(MEMUSAGE_RESOLVE_OPTIONAL)
#undef MEMUSAGE_RESOLVE_OPTIONAL
#undef MEMUSAGE_RESOLVE_ORIGINAL
    // execve is always the C library's: where malloc comes from elsewhere, another
    // allocator sits between us and it.
    if (found)
        allocator_is_libc = object_of(reinterpret_cast<void*>(malloc)) ==
                            object_of(reinterpret_cast<void*>(execve));
    return found;
}

}  // namespace memusage::original

namespace memusage::bootstrap {
namespace {

std::atomic<size_t> arena_used{0};

struct ArenaHeader {
    size_t size;
    size_t padding;
};

}  // namespace

alignas(64) unsigned char arena[kArenaBytes];

void* allocate(size_t size, size_t alignment) {
    if (alignment < 16) alignment = 16;
    size_t used = arena_used.load(std::memory_order_relaxed);
    for (;;) {
        size_t start = (used + sizeof(ArenaHeader) + alignment - 1) & ~(alignment - 1);
        if (start > kArenaBytes || size > kArenaBytes - start) return nullptr;
        if (arena_used.compare_exchange_weak(used, start + size)) {
            reinterpret_cast<ArenaHeader*>(arena + start)[-1].size = size;
            return arena + start;
        }
    }
}

size_t size_of(const void* p) { return static_cast<const ArenaHeader*>(p)[-1].size; }

}  // namespace memusage::bootstrap
