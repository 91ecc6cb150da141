#include "platform/stacks.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

namespace memusage {

StackRange main_thread_stack(uintptr_t start) {
    StackRange range;
    struct rlimit limit;
    // The kernel keeps the main stack within its limit of the stack's top, which lies a
    // little above `start` (the environment, the auxiliary vector): below start - limit
    // is certainly not the main stack, and an alternate stack mapped by the program lies
    // there (the kernel maps below the stack's largest extent).
    if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return range;
    range.low = start > limit.rlim_cur ? start - limit.rlim_cur : 0;
    return range;
}

StackRange this_thread_stack(bool main_thread, uintptr_t main_start) {
    if (main_thread) return main_thread_stack(main_start);
    StackRange range;
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return range;
    void* low = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &low, &size) == 0 && size != 0) {
        range.low = reinterpret_cast<uintptr_t>(low);
        range.high = range.low + size;
    }
    pthread_attr_destroy(&attributes);
    return range;
}

bool signal_stack_depth(uintptr_t sp, uint64_t& depth, uintptr_t& top) {
    stack_t current;
    if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) != 0) return false;
    auto low = reinterpret_cast<uintptr_t>(current.ss_sp);
    if (sp - low >= current.ss_size) return false;
    top = low + current.ss_size;
    depth = top - sp;
    return true;
}

}  // namespace memusage
