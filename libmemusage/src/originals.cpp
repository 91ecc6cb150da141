#include "originals.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>

namespace memusage::original {

bool resolve() {
    bool found = true;
#define MEMUSAGE_RESOLVE_ORIGINAL(name)                                  \
    name = reinterpret_cast<decltype(&::name)>(dlsym(RTLD_NEXT, #name)); \
    found = found && name != nullptr;
    MEMUSAGE_HOOKED_FUNCTIONS(MEMUSAGE_RESOLVE_ORIGINAL)
#undef MEMUSAGE_RESOLVE_ORIGINAL
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
