// The heap functions on blocks with our header, counted through `counting` when it
// is not null. Argument rules and error results are glibc's, so a program sees
// exactly what its malloc would give it.
#pragma once

#include <cstddef>

#include "counting.h"

namespace memusage::tracked {

void* allocate(Counting* counting, size_t size);
void* allocate_zeroed(Counting* counting, size_t count, size_t size);
void* reallocate(Counting* counting, void* block, size_t size);
void* reallocate_array(Counting* counting, void* block, size_t count, size_t size);
void release(Counting* counting, void* block);
size_t usable_size(void* block);

// memalign and aligned_alloc (the same function in glibc 2.36); valloc and pvalloc.
void* allocate_aligned(Counting* counting, size_t alignment, size_t size);
void* allocate_page_aligned(Counting* counting, size_t size, bool round_size_up);
int posix_allocate_aligned(Counting* counting, void** result, size_t alignment, size_t size);

}  // namespace memusage::tracked
